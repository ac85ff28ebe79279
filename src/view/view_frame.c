/* Composes a frame: title bar, one column per visible pane, status bar with the legend, then
 * the overlays. Panes share one money scale so that equal bars mean equal money across
 * modes: the comparison is the lesson. */
#include "view_frame.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "view_narration.h"
#include "view_sequence.h"

static int P(const ViewFrame *frame, float length)
{
    return view_layout_px(&frame->layout, length);
}

static SDL_Color C(ViewColor color)
{
    return view_canvas_color(color, 255);
}

int view_frame_pane_of_column(const ViewFrame *frame, int column)
{
    return frame->focus >= 0 ? frame->focus : column;
}

/* ------------------------------------------------------------------ bars */

static void format_speed(char *buffer, size_t size, double speed)
{
    if (speed >= 0.25)
        snprintf(buffer, size, "%g\xC3\x97", speed);
    else
        snprintf(buffer, size, "1/%g\xC3\x97", 1.0 / speed);
}

static void draw_title(ViewFrame *frame)
{
    ViewCanvas *canvas = frame->canvas;
    ViewRect r = frame->layout.title;
    const ViewSession *session = frame->session;
    view_canvas_fill(canvas, r, C(VIEW_COLOR_PANEL));
    int pad = P(frame, 12);
    int title_h = view_canvas_text_height(canvas, VIEW_FONT_TITLE);
    int y = r.y + (r.h - title_h) / 2;
    int x = r.x + pad;
    x += view_canvas_text(canvas, VIEW_FONT_TITLE, C(VIEW_COLOR_MESSAGE), x, y, VIEW_ALIGN_LEFT,
                          "idemsim");
    char speed[32], state[160];
    format_speed(speed, sizeof speed, session->speed);
    SimTimeUs now = view_session_clock(session);
    const char *run = frame->quiz != NULL && view_quiz_holds_clock(frame->quiz)
                          ? "   \xE2\x9D\x9A\xE2\x9D\x9A question"
                      : frame->paused              ? "   \xE2\x9D\x9A\xE2\x9D\x9A paused"
                      : view_session_done(session) ? "   \xE2\x9C\x93 finished"
                                                   : "";
    /* Past the duration the clock says so: no payment starts any more, what was sent is
     * still arriving, and "t 200 s of 60 s" alone reads like a bug. */
    snprintf(state, sizeof state,
             "t %.1f s %s %.0f s \xC2\xB7 speed %s \xC2\xB7 seed %" PRIu64 "%s", (double)now / 1e6,
             view_session_draining(session) ? "\xC2\xB7 draining after" : "of",
             session->scenario->duration_ms / 1000.0, speed, session->seed,
             frame->interactive ? run : "");
    int state_w = view_canvas_text(
        canvas, VIEW_FONT_BODY, C(frame->paused ? VIEW_COLOR_WARNING : VIEW_COLOR_TEXT),
        r.x + r.w - pad, r.y + (r.h - view_canvas_text_height(canvas, VIEW_FONT_BODY)) / 2,
        VIEW_ALIGN_RIGHT, state);
    x += P(frame, 14);
    const char *title =
        session->scenario->title[0] ? session->scenario->title : session->scenario->name;
    view_canvas_text_fit(canvas, VIEW_FONT_TITLE, C(VIEW_COLOR_TEXT), x, y, VIEW_ALIGN_LEFT,
                         r.x + r.w - pad - state_w - P(frame, 16) - x, title);
}

typedef enum { LEGEND_RIGHTWARDS, LEGEND_LEFTWARDS, LEGEND_CROSS } LegendGlyph;

/* A legend entry: the glyph as the diagram draws it (requests go right to the services,
 * answers come back left), then its words. Colour is never the only difference: a retry and
 * a 409 share amber but point opposite ways and are named apart, as in the diagram. */
static int legend_item(ViewFrame *frame, int x, int y, int h, ViewColor color, const char *text,
                       LegendGlyph glyph)
{
    ViewCanvas *canvas = frame->canvas;
    float mid = (float)y + (float)h / 2;
    float left = (float)x, right = (float)(x + P(frame, 16));
    if (glyph == LEGEND_CROSS) {
        view_canvas_cross(canvas, (float)x + (float)P(frame, 6), mid, (float)P(frame, 4),
                          (float)P(frame, 2), C(color));
    } else if (glyph == LEGEND_RIGHTWARDS) {
        view_canvas_line(canvas, left, mid, right - (float)P(frame, 2), mid, (float)P(frame, 2.5f),
                         C(color));
        view_canvas_arrowhead(canvas, left, mid, right, mid, (float)P(frame, 6), C(color));
    } else {
        view_canvas_line(canvas, left + (float)P(frame, 2), mid, right, mid, (float)P(frame, 2),
                         C(color));
        view_canvas_arrowhead(canvas, right, mid, left, mid, (float)P(frame, 6), C(color));
    }
    x += P(frame, 20);
    x += view_canvas_text(canvas, VIEW_FONT_SMALL, C(VIEW_COLOR_TEXT_DIM), x,
                          y + (h - view_canvas_text_height(canvas, VIEW_FONT_SMALL)) / 2,
                          VIEW_ALIGN_LEFT, text);
    return x + P(frame, 14);
}

static void draw_status(ViewFrame *frame)
{
    ViewCanvas *canvas = frame->canvas;
    ViewRect r = frame->layout.status;
    view_canvas_fill(canvas, r, C(VIEW_COLOR_PANEL));
    int x = r.x + P(frame, 12);
    x = legend_item(frame, x, r.y, r.h, VIEW_COLOR_MESSAGE, "request", LEGEND_RIGHTWARDS);
    x = legend_item(frame, x, r.y, r.h, VIEW_COLOR_WARNING, "retry", LEGEND_RIGHTWARDS) -
        P(frame, 6);
    x = legend_item(frame, x, r.y, r.h, VIEW_COLOR_WARNING, "409", LEGEND_LEFTWARDS);
    x = legend_item(frame, x, r.y, r.h, VIEW_COLOR_RESPONSE, "answer", LEGEND_LEFTWARDS);
    x = legend_item(frame, x, r.y, r.h, VIEW_COLOR_OK, "replayed", LEGEND_LEFTWARDS);
    x = legend_item(frame, x, r.y, r.h, VIEW_COLOR_DOUBLE, "charged again", LEGEND_RIGHTWARDS);
    x = legend_item(frame, x, r.y, r.h, VIEW_COLOR_DOUBLE, "lost", LEGEND_CROSS);
    const char *hints = !frame->interactive ? "dashed: a network duplicate"
                        : frame->in_browser
                            ? "space pause \xC2\xB7 n step \xC2\xB7 +/\xE2\x88\x92 speed \xC2\xB7 "
                              "1-3 focus \xC2\xB7 h help"
                            : "space pause \xC2\xB7 n step \xC2\xB7 +/\xE2\x88\x92 speed \xC2\xB7 "
                              "1-3 focus \xC2\xB7 h help \xC2\xB7 q quit";
    int small_h = view_canvas_text_height(canvas, VIEW_FONT_SMALL);
    int right = r.x + r.w - P(frame, 12);
    if (view_canvas_text_width(canvas, VIEW_FONT_SMALL, hints) < right - x)
        view_canvas_text(canvas, VIEW_FONT_SMALL, C(VIEW_COLOR_TEXT_DIM), right,
                         r.y + (r.h - small_h) / 2, VIEW_ALIGN_RIGHT, hints);
}

/* ------------------------------------------------------------------ panes */

static int64_t money_scale(const ViewSession *session)
{
    int64_t scale = 1;
    for (uint32_t p = 0; p < session->pane_count; p++) {
        const ViewTally *tally = &session->panes[p]->tally;
        for (uint32_t a = 0; a < tally->account_count && a < ACCOUNTS_MAX; a++) {
            int64_t expected = tally->initial[a] - tally->expected[a];
            int64_t actual = tally->initial[a] - tally->actual[a];
            scale = expected > scale ? expected : scale;
            scale = actual > scale ? actual : scale;
        }
    }
    return scale + scale / 20; /* headroom, so a full bar still shows its end */
}

/* ------------------------------------------------------------------ the shared timeline */

#define BUSY_PER_PANE 2048 /* recent moments per pane; a busier pane has no quiet stretch */
#define BUSY_LOOKBACK 6    /* windows back from the clock where quiet stretches are looked for */

/* The moments something happened in pane up to the clock: its newest diagram items
 * (sampled clients), however long ago, so a run that went quiet long before the clock still
 * shows its last exchange; and every client's traffic since `since` (the density ring), so
 * a stretch is quiet only when no client at all did anything. */
static size_t pane_busy(const ViewPane *pane, SimTimeUs since_us, SimTimeUs clock_us,
                        SimTimeUs *busy, size_t room)
{
    size_t count = 0;
    for (uint64_t serial = view_pane_next_serial(pane);
         serial-- > view_pane_first_serial(pane) && count + 2 <= room / 2;) {
        const DiagramItem *item = view_pane_arrow(pane, serial);
        if (item == NULL)
            break;
        if (item->start_us <= clock_us)
            busy[count++] = item->start_us;
        if (item->end_us != SIM_TIME_NEVER && item->end_us <= clock_us)
            busy[count++] = item->end_us;
    }
    SimTimeUs step = VIEW_DENSITY_BUCKET_US;
    SimTimeUs span = clock_us - since_us;
    if (span / step > room / 2)
        step = span / (room / 2) + 1;
    for (SimTimeUs t = since_us; t < clock_us && count < room; t += step) {
        if (view_pane_density(pane, t, t + step).sends > 0)
            busy[count++] = t;
    }
    return count;
}

static void shared_timeline(const ViewFrame *frame, ViewTimeline *timeline)
{
    const ViewSession *session = frame->session;
    SimTimeUs clock = view_session_clock(session);
    SimTimeUs window = view_session_window_us(session);
    SimTimeUs since = frame->fixed_window              ? frame->window_from_us
                      : clock > window * BUSY_LOOKBACK ? clock - window * BUSY_LOOKBACK
                                                       : 0;
    SimTimeUs until =
        frame->fixed_window && frame->window_to_us < clock ? frame->window_to_us : clock;
    SimTimeUs busy[BUSY_PER_PANE * MODE_COUNT];
    size_t count = 0;
    for (int column = 0; column < frame->layout.pane_count; column++) {
        const ViewPane *pane = session->panes[view_frame_pane_of_column(frame, column)];
        count += pane_busy(pane, since, until, busy + count, BUSY_PER_PANE);
    }
    if (frame->fixed_window)
        view_timeline_fixed(timeline, busy, count, frame->window_from_us, frame->window_to_us);
    else
        view_timeline_follow(timeline, busy, count, clock, window);
}

/* The colour of a telling story's headline: as the counter of its outcome. */
static ViewColor headline_color(const char *headline)
{
    if (strstr(headline, "twice") != NULL || strstr(headline, "stale") != NULL)
        return VIEW_COLOR_DOUBLE;
    if (strstr(headline, "never") != NULL)
        return VIEW_COLOR_LOST;
    if (strstr(headline, "caught") != NULL)
        return VIEW_COLOR_OK;
    return VIEW_COLOR_WARNING;
}

/* The colour of explain's "outcome: double: ..." line: its outcome's counter's. */
static ViewColor outcome_color(const char *line)
{
    if (strncmp(line, "outcome: ok", 11) == 0)
        return VIEW_COLOR_OK;
    if (strncmp(line, "outcome: double", 15) == 0)
        return VIEW_COLOR_DOUBLE;
    if (strncmp(line, "outcome: lost", 13) == 0)
        return VIEW_COLOR_LOST;
    return VIEW_COLOR_WARNING;
}

/* The rows the chosen steps take, each run of steps left out (and the lines a long story
 * lost) said in a row of its own. */
static int rows_taken(const ViewStory *story, const int *need, int first, int end,
                      const bool *shown)
{
    int rows = 0;
    for (int i = first; i < end; i++) {
        if (shown[i])
            rows += need[i];
        else if (i == first || shown[i - 1])
            rows++;
    }
    if (story->truncated && (end == first || shown[end - 1]))
        rows++;
    return rows;
}

/* Which steps of [first, end) a story shows in `rows`: all when they fit; else, in this
 * order while they fit, the first two (the click, the first send), the steps that are the
 * lesson (a crash, a copy lost, the stale write, an effect), then the steps before the
 * telling one (its anchor) or the last, from there backwards. */
static void choose_steps(const ViewStory *story, const int *need, int first, int end, int rows,
                         bool *shown)
{
    for (int i = first; i < end; i++)
        shown[i] = true;
    if (rows_taken(story, need, first, end, shown) <= rows)
        return;
    int anchor_end = end;
    for (int i = first; story->anchor[0] != '\0' && i < end; i++) {
        if (strstr(story->lines[i], story->anchor) != NULL) {
            anchor_end = i + 2 < end ? i + 2 : end;
            break;
        }
    }
    static const char *const lessons[] = {"CRASH", "LOST", "stale overwrite", ": charges",
                                          ": runs"};
    /* the first two, then each lesson line, then the lines before the anchor: a line may
     * come twice (the loop below skips what is shown), so room for every list in full */
    int order[2 * VIEW_STORY_LINES_MAX + 2], count = 0;
    for (int i = first; i < end && i < first + 2; i++)
        order[count++] = i;
    for (int i = first + 2; i < end; i++) {
        for (size_t w = 0; w < sizeof lessons / sizeof lessons[0]; w++) {
            if (strstr(story->lines[i], lessons[w]) != NULL) {
                order[count++] = i;
                break;
            }
        }
    }
    for (int i = anchor_end; i-- > first + 2;)
        order[count++] = i;
    for (int i = first; i < end; i++)
        shown[i] = false;
    for (int c = 0; c < count; c++) {
        if (shown[order[c]])
            continue;
        shown[order[c]] = true;
        if (rows_taken(story, need, first, end, shown) > rows)
            shown[order[c]] = false;
    }
}

/* A finished column's most telling operation, told as explain tells it, where its diagram
 * was: at the end the diagram holds only the last quiet exchange, and the cause (the lost
 * answer, the second charge) has long scrolled off. Its steps in order, wrapped to the
 * column (choose_steps when they do not all fit, with a line for each run left out), and
 * always the outcome and what caught each duplicate. */
static void draw_end_story(ViewFrame *frame, ViewRect rect, const ViewStory *story)
{
    ViewCanvas *canvas = frame->canvas;
    view_canvas_round(canvas, rect, (float)P(frame, 6), C(VIEW_COLOR_PANEL));
    int pad = P(frame, 8);
    int x = rect.x + pad, wrap = rect.w - 2 * pad, y = rect.y + pad;
    int bottom = rect.y + rect.h - pad;
    int title_h = view_canvas_text_height(canvas, VIEW_FONT_LABEL);
    int line_h = view_canvas_text_height(canvas, VIEW_FONT_SMALL);
    char title[96];
    snprintf(title, sizeof title, "THE STORY OF OPERATION %" PRIu64, story->operation);
    view_canvas_text_fit(canvas, VIEW_FONT_LABEL, C(VIEW_COLOR_TEXT), x, y, VIEW_ALIGN_LEFT, wrap,
                         title);
    y += title_h;
    ViewColor tone = headline_color(story->headline);
    y += line_h *
         view_canvas_text_lines(canvas, VIEW_FONT_SMALL, C(tone), x, y, wrap, 2, story->headline);
    y += P(frame, 4);
    int verdict_rows = 0, first_verdict = story->line_count;
    for (int i = story->line_count; i-- > 0;) {
        const char *line = story->lines[i];
        if (strncmp(line, "outcome:", 8) != 0 && strncmp(line, "caught:", 7) != 0)
            break;
        first_verdict = i;
        verdict_rows += view_canvas_text_line_count(canvas, VIEW_FONT_SMALL, wrap, line);
    }
    int rows = (bottom - y) / line_h - verdict_rows;
    int first = 0;
    size_t mode_length = strlen(mode_name(story->mode));
    if (first_verdict > 0 && strncmp(story->lines[0], mode_name(story->mode), mode_length) == 0 &&
        story->lines[0][mode_length] == ':')
        first = 1; /* "at-least-once: operation 680", which the title and the column say */
    int need[VIEW_STORY_LINES_MAX];
    for (int i = first; i < first_verdict; i++)
        need[i] = view_canvas_text_line_count(canvas, VIEW_FONT_SMALL, wrap, story->lines[i]);
    bool shown[VIEW_STORY_LINES_MAX] = {false};
    choose_steps(story, need, first, first_verdict, rows, shown);
    for (int i = first; i <= first_verdict; i++) {
        if (i < first_verdict && shown[i]) {
            y += line_h * view_canvas_text_lines(canvas, VIEW_FONT_SMALL, C(VIEW_COLOR_TEXT_DIM), x,
                                                 y, wrap, need[i], story->lines[i]);
            continue;
        }
        int run = 0;
        while (i + run < first_verdict && !shown[i + run])
            run++;
        bool rest = i + run == first_verdict && story->truncated;
        if (run == 0 && !rest)
            continue;
        char count[16] = "";
        if (run > 0)
            snprintf(count, sizeof count, "%d%s ", run, rest ? "+" : "");
        char more[96];
        snprintf(more, sizeof more, "\xE2\x80\xA6 %smore steps: idemsim explain --op %" PRIu64,
                 count, story->operation);
        view_canvas_text_fit(canvas, VIEW_FONT_SMALL, C(VIEW_COLOR_TEXT_DIM), x, y, VIEW_ALIGN_LEFT,
                             wrap, more);
        y += line_h;
        i += run > 0 ? run - 1 : 0;
        if (rest)
            break;
    }
    for (int v = first_verdict; v < story->line_count && y + line_h <= bottom; v++) {
        int need = view_canvas_text_line_count(canvas, VIEW_FONT_SMALL, wrap, story->lines[v]);
        int fit = (bottom - y) / line_h;
        y += line_h * view_canvas_text_lines(
                          canvas, VIEW_FONT_SMALL,
                          C(v == first_verdict ? outcome_color(story->lines[v]) : VIEW_COLOR_TEXT),
                          x, y, wrap, need < fit ? need : fit, story->lines[v]);
    }
}

static void draw_pane(ViewFrame *frame, int column, int64_t scale, const ViewTimeline *timeline,
                      bool staggered, ViewSequencePick *pick)
{
    int index = view_frame_pane_of_column(frame, column);
    const ViewPane *pane = frame->session->panes[index];
    const ViewPaneLayout *box = &frame->layout.panes[column];
    view_canvas_round(frame->canvas, box->pane, (float)P(frame, 8),
                      view_canvas_mix(VIEW_COLOR_BACKGROUND, VIEW_COLOR_PANEL, 0.55f));
    ViewPanels panels = {.canvas = frame->canvas,
                         .layout = &frame->layout,
                         .box = box,
                         .pane = pane,
                         .money_scale = scale,
                         .now_us = view_session_clock(frame->session),
                         .clock_stopped = view_session_finished(frame->session),
                         .hidden = frame->quiz != NULL ? view_quiz_hidden(frame->quiz) : 0,
                         .hidden_drawn = &frame->hidden_drawn,
                         .extra = frame->extra_counter};
    view_panels_header(&panels);
    view_panels_counters(&panels);
    view_panels_balances(&panels);
    if (view_rates_shown(pane) && !(panels.hidden & VIEW_QUIZ_HIDE_KEY_STORE))
        view_panels_rates(&panels); /* a storm is a rate: it takes the key store's place */
    else
        view_panels_keys(&panels);
    view_panels_narration(&panels);
    const ViewStory *story =
        frame->end_stories != NULL && index < MODE_COUNT ? &frame->end_stories[index] : NULL;
    /* a fixed window asks for that stretch of time: the diagram, finished or not; and a
     * question on screen is voted on before any story tells how it ended */
    bool question = frame->quiz != NULL && view_quiz_shown(frame->quiz) != NULL;
    if (story != NULL && story->valid && !frame->fixed_window && !question &&
        view_pane_finished_at(pane, view_session_clock(frame->session),
                              view_session_finished(frame->session)))
        draw_end_story(frame, box->sequence, story);
    else
        view_sequence_draw(frame->canvas, &frame->layout, box->sequence, pane, timeline,
                           view_session_clock(frame->session), staggered, pick);
}

/* ------------------------------------------------------------------ overlays */

/* The clicked operation's story, explain's lines, in a panel across the frame: at the bottom
 * when the click was in the top half, else at the top, so the arrow stays in sight. */
static void draw_story(ViewFrame *frame, int anchor_y)
{
    const ViewStory *story = frame->story;
    if (story == NULL || !story->valid)
        return;
    ViewCanvas *canvas = frame->canvas;
    int pad = P(frame, 12);
    int line_h = view_canvas_text_height(canvas, VIEW_FONT_SMALL);
    int title_h = view_canvas_text_height(canvas, VIEW_FONT_LABEL);
    int lines = story->line_count + (story->truncated ? 1 : 0);
    int w = view_frame_visible_width(frame) - 2 * P(frame, 24);
    int h = title_h + P(frame, 6) + lines * line_h + 2 * pad;
    int top = frame->layout.title.y + frame->layout.title.h + P(frame, 8);
    int bottom = frame->layout.status.y - P(frame, 8) - h;
    ViewRect box = {P(frame, 24), anchor_y < frame->layout.height / 2 ? bottom : top, w, h};
    view_canvas_round(canvas, box, (float)P(frame, 8), C(VIEW_COLOR_MESSAGE));
    view_canvas_round(canvas, (ViewRect){box.x + 2, box.y + 2, box.w - 4, box.h - 4},
                      (float)P(frame, 7), view_canvas_color(VIEW_COLOR_PANEL_RAISED, 245));
    char title[160];
    snprintf(title, sizeof title,
             "THE STORY OF OPERATION %" PRIu64 " IN %s, AS OF %.2f s   (idemsim explain "
             "--op %" PRIu64 "; Esc or a click on nothing closes it)",
             story->operation, mode_name(story->mode), (double)story->as_of_us / 1e6,
             story->operation);
    int x = box.x + pad, y = box.y + pad;
    view_canvas_text_fit(canvas, VIEW_FONT_LABEL, C(VIEW_COLOR_MESSAGE), x, y, VIEW_ALIGN_LEFT,
                         box.w - 2 * pad, title);
    y += title_h + P(frame, 6);
    for (int i = 0; i < story->line_count; i++, y += line_h) {
        const char *line = story->lines[i];
        bool verdict = strncmp(line, "outcome:", 8) == 0 || strncmp(line, "caught:", 7) == 0;
        view_canvas_text_fit(canvas, VIEW_FONT_SMALL,
                             C(verdict ? VIEW_COLOR_TEXT : VIEW_COLOR_TEXT_DIM), x, y,
                             VIEW_ALIGN_LEFT, box.w - 2 * pad, line);
    }
    if (story->truncated)
        view_canvas_text(canvas, VIEW_FONT_SMALL, C(VIEW_COLOR_TEXT_DIM), x, y, VIEW_ALIGN_LEFT,
                         "\xE2\x80\xA6 (the rest: idemsim explain)");
}

static void draw_details(ViewFrame *frame, int pane_index, uint64_t serial, ViewSegment at)
{
    ViewCanvas *canvas = frame->canvas;
    const ViewPane *pane = frame->session->panes[pane_index];
    const DiagramItem *arrow = view_pane_arrow(pane, serial);
    if (arrow == NULL || !at.valid)
        return;
    SDL_Color white = C(VIEW_COLOR_TEXT);
    view_canvas_line(canvas, at.x1, at.y1, at.x2, at.y2, (float)P(frame, 4), white);
    view_canvas_circle(canvas, at.x2, at.y2, (float)P(frame, 4), white);
    ViewDetails details;
    view_narration_details(pane, arrow, &details);
    int line_h = view_canvas_text_height(canvas, VIEW_FONT_SMALL);
    int title_h = view_canvas_text_height(canvas, VIEW_FONT_LABEL);
    int w = view_canvas_text_width(canvas, VIEW_FONT_LABEL, details.title);
    for (int i = 0; i < details.line_count; i++) {
        int lw = view_canvas_text_width(canvas, VIEW_FONT_SMALL, details.lines[i]);
        w = lw > w ? lw : w;
    }
    int pad = P(frame, 10);
    ViewRect box = {(int)at.x2 + P(frame, 14), (int)at.y2 - P(frame, 10), w + 2 * pad,
                    title_h + details.line_count * line_h + 2 * pad + P(frame, 4)};
    if (box.x + box.w > frame->layout.width - P(frame, 4))
        box.x = (int)at.x2 - P(frame, 14) - box.w;
    if (box.x < P(frame, 4))
        box.x = P(frame, 4);
    if (box.y + box.h > frame->layout.status.y)
        box.y = frame->layout.status.y - box.h;
    view_canvas_round(canvas, box, (float)P(frame, 6), C(details.color));
    view_canvas_round(canvas, (ViewRect){box.x + 2, box.y + 2, box.w - 4, box.h - 4},
                      (float)P(frame, 5), C(VIEW_COLOR_PANEL_RAISED));
    view_canvas_text(canvas, VIEW_FONT_LABEL, C(details.color), box.x + pad, box.y + pad,
                     VIEW_ALIGN_LEFT, details.title);
    for (int i = 0; i < details.line_count; i++)
        view_canvas_text(canvas, VIEW_FONT_SMALL, white, box.x + pad,
                         box.y + pad + title_h + P(frame, 4) + i * line_h, VIEW_ALIGN_LEFT,
                         details.lines[i]);
}

/* What each key does where: a page cannot quit or take options, a scenario without
 * questions has nothing to reveal; the help lists only what works here (the browser page
 * once advertised q and the predict keys, which did nothing there). */
typedef enum { HELP_EVERYWHERE, HELP_DESKTOP, HELP_PREDICT } HelpWhere;

static const struct {
    HelpWhere where;
    const char *keys, *desktop, *browser; /* browser NULL: the desktop's words */
} help_lines[] = {
    {HELP_EVERYWHERE, "space", "pause / resume", NULL},
    {HELP_PREDICT, "space  enter", "reveal the question, then run on", NULL},
    {HELP_EVERYWHERE, "n  or  \xE2\x86\x92", "step to the next event", NULL},
    {HELP_EVERYWHERE, "+  /  \xE2\x88\x92", "faster / slower (simulated time per second)", NULL},
    {HELP_EVERYWHERE, "r", "restart with the same seed", NULL},
    {HELP_EVERYWHERE, "s", "new seed (the same faults hit every mode)", NULL},
    {HELP_EVERYWHERE, "1  2  3", "focus one mode;  0  all modes", NULL},
    {HELP_EVERYWHERE, "mouse", "point at a message for its details, click for its story", NULL},
    {HELP_EVERYWHERE, "p", "save a PNG screenshot", "download a PNG screenshot"},
    {HELP_EVERYWHERE, "f", "full screen", NULL},
    {HELP_EVERYWHERE, "h", "this help", NULL},
    {HELP_EVERYWHERE, "Esc", "close this help or the story, else quit",
     "close this help or the story"},
    {HELP_DESKTOP, "q", "quit", NULL},
};

static bool help_line_applies(const ViewFrame *frame, HelpWhere where)
{
    switch (where) {
    case HELP_DESKTOP:
        return !frame->in_browser;
    case HELP_PREDICT:
        return frame->quiz != NULL && frame->quiz->question_count > 0;
    case HELP_EVERYWHERE:
        break;
    }
    return true;
}

static void draw_help(ViewFrame *frame)
{
    ViewCanvas *canvas = frame->canvas;
    view_canvas_fill(canvas, (ViewRect){0, 0, frame->layout.width, frame->layout.height},
                     view_canvas_color(VIEW_COLOR_BACKGROUND, 215));
    int count = 0;
    for (size_t i = 0; i < sizeof help_lines / sizeof help_lines[0]; i++)
        count += help_line_applies(frame, help_lines[i].where);
    int line_h = view_canvas_text_height(canvas, VIEW_FONT_BODY) + P(frame, 6);
    int visible = view_frame_visible_width(frame);
    int w = P(frame, 620), h = P(frame, 70) + count * line_h + P(frame, 70);
    w = w < visible - 2 * P(frame, 16) ? w : visible - 2 * P(frame, 16);
    ViewRect box = {(visible - w) / 2, (frame->layout.height - h) / 2, w, h};
    view_canvas_round(canvas, box, (float)P(frame, 10), C(VIEW_COLOR_PANEL_RAISED));
    int x = box.x + P(frame, 28), y = box.y + P(frame, 22);
    view_canvas_text(canvas, VIEW_FONT_HEADER, C(VIEW_COLOR_TEXT), x, y, VIEW_ALIGN_LEFT,
                     "Controls");
    y += P(frame, 44);
    for (size_t i = 0; i < sizeof help_lines / sizeof help_lines[0]; i++) {
        if (!help_line_applies(frame, help_lines[i].where))
            continue;
        const char *words = frame->in_browser && help_lines[i].browser != NULL
                                ? help_lines[i].browser
                                : help_lines[i].desktop;
        view_canvas_text(canvas, VIEW_FONT_BODY, C(VIEW_COLOR_MESSAGE), x, y, VIEW_ALIGN_LEFT,
                         help_lines[i].keys);
        view_canvas_text(canvas, VIEW_FONT_BODY, C(VIEW_COLOR_TEXT), x + P(frame, 150), y,
                         VIEW_ALIGN_LEFT, words);
        y += line_h;
    }
    view_canvas_text_wrapped(canvas, VIEW_FONT_SMALL, C(VIEW_COLOR_TEXT_DIM), x, y + P(frame, 8),
                             w - P(frame, 56),
                             "Every mode runs the same seed, so each meets the same lost and "
                             "slow messages. Lanes show the first clients; the band on the "
                             "left counts every client's requests (amber: retries).");
}

/* A notice ("saved FILE.png") covers the status bar for a moment, not the panes: the
 * narration just above it stays readable. */
static void draw_notice(ViewFrame *frame)
{
    if (frame->notice[0] == '\0')
        return;
    ViewCanvas *canvas = frame->canvas;
    ViewRect box = frame->layout.status;
    view_canvas_fill(canvas, box, C(VIEW_COLOR_MESSAGE));
    int text_h = view_canvas_text_height(canvas, VIEW_FONT_BODY);
    view_canvas_text(canvas, VIEW_FONT_BODY, C(VIEW_COLOR_BACKGROUND), box.x + P(frame, 14),
                     box.y + (box.h - text_h) / 2, VIEW_ALIGN_LEFT, frame->notice);
}

/* ------------------------------------------------------------------ the frame */

/* C8's keyed column once said "exact" with 11 clients told another payment's answer: an
 * outcome without a counter is an outcome the room does not see. Every column gets the
 * fifth counter when any has the outcome, so rows still compare; a question about it shows
 * it as "?" before any happened, so its appearing cannot give the answer away. */
static void choose_extra_counter(ViewFrame *frame)
{
    const ViewSession *session = frame->session;
    SimTimeUs clock = view_session_clock(session);
    if (clock < frame->extra_since_us)
        frame->extra_counter = VIEW_EXTRA_NONE; /* restarted */
    frame->extra_since_us = clock;
    unsigned hidden = frame->quiz != NULL ? view_quiz_hidden(frame->quiz) : 0;
    if ((hidden & VIEW_QUIZ_HIDE_MISMATCH) != 0)
        frame->extra_counter = VIEW_EXTRA_MISMATCH;
    else if ((hidden & VIEW_QUIZ_HIDE_STALE) != 0)
        frame->extra_counter = VIEW_EXTRA_STALE;
    else if ((hidden & VIEW_QUIZ_HIDE_TWICE) != 0)
        frame->extra_counter = VIEW_EXTRA_TWICE;
    else if ((hidden & VIEW_QUIZ_HIDE_LOST_UPDATES) != 0)
        frame->extra_counter = VIEW_EXTRA_LOST_UPDATES;
    else if ((hidden & VIEW_QUIZ_HIDE_DOUBLE_HOLDS) != 0)
        frame->extra_counter = VIEW_EXTRA_DOUBLE_HOLDS;
    else if ((hidden & VIEW_QUIZ_HIDE_REFUNDED) != 0)
        frame->extra_counter = VIEW_EXTRA_REFUNDED;
    /* in that order: a wrong answer, a status gone backwards, an order shipped twice, a
     * debit written over or a second hold on a card (C35: the customer sees it, whatever
     * was captured) is harm; a refund or a
     * decline is an end the customer was told of, shown so that the four counters' sum
     * is not short by them */
    ViewExtraCounter wanted = frame->extra_counter;
    for (uint32_t p = 0; p < session->pane_count && wanted != VIEW_EXTRA_MISMATCH; p++) {
        const ViewPane *pane = session->panes[p];
        ViewExtraCounter here = VIEW_EXTRA_NONE;
        if (pane->tally.outcomes[OUTCOME_MISMATCH] > 0)
            here = VIEW_EXTRA_MISMATCH;
        else if (world_metrics(pane->world)->stale_overwrites > 0)
            here = VIEW_EXTRA_STALE;
        else if (world_metrics(pane->world)->orders_fulfilled_twice > 0)
            here = VIEW_EXTRA_TWICE;
        else if (world_metrics(pane->world)->lost_updates > 0)
            here = VIEW_EXTRA_LOST_UPDATES;
        else if (world_metrics(pane->world)->double_holds > 0)
            here = VIEW_EXTRA_DOUBLE_HOLDS;
        else if (pane->tally.outcomes[OUTCOME_REFUNDED] > 0)
            here = VIEW_EXTRA_REFUNDED;
        else if (pane->tally.outcomes[OUTCOME_DECLINED] > 0)
            here = VIEW_EXTRA_DECLINED;
        if (here != VIEW_EXTRA_NONE && (wanted == VIEW_EXTRA_NONE || here < wanted))
            wanted = here;
    }
    frame->extra_counter = wanted;
    view_layout_set_counters(&frame->layout, frame->extra_counter != VIEW_EXTRA_NONE
                                                 ? VIEW_COUNTERS_MAX
                                                 : VIEW_COUNTERS);
}

int view_frame_visible_width(const ViewFrame *frame)
{
    int width = frame->layout.width;
    int covered = frame->covered_right < width / 2 ? frame->covered_right : width / 2;
    return width - (covered > 0 ? covered : 0);
}

void view_frame_draw(ViewFrame *frame)
{
    ViewCanvas *canvas = frame->canvas;
    view_canvas_log_restart(canvas);
    SDL_Color background = C(VIEW_COLOR_BACKGROUND);
    SDL_SetRenderDrawColor(canvas->renderer, background.r, background.g, background.b, 255);
    SDL_RenderClear(canvas->renderer);
    draw_title(frame);
    choose_extra_counter(frame);
    int64_t scale = money_scale(frame->session);
    frame->hovered_pane = -1;
    frame->hovered_serial = 0;
    if (frame->drawn != NULL)
        frame->drawn->count = 0;
    frame->hidden_drawn = 0;
    frame->card_logged_from = -1;
    ViewSegment pinned = {0}, hovered = {0};
    ViewTimeline timeline;
    shared_timeline(frame, &timeline);
    /* one pane too crowded for its groups' names staggers them in every pane: the header
     * grows a row, and the columns' time axes stay level */
    bool staggered = false;
    for (int column = 0; column < frame->layout.pane_count && !staggered; column++)
        staggered =
            view_sequence_crowded(canvas, &frame->layout, frame->layout.panes[column].sequence,
                                  frame->session->panes[view_frame_pane_of_column(frame, column)],
                                  &timeline, view_session_clock(frame->session));
    for (int column = 0; column < frame->layout.pane_count; column++) {
        int index = view_frame_pane_of_column(frame, column);
        ViewSequencePick pick = {.mouse_x = frame->mouse_x,
                                 .mouse_y = frame->mouse_y,
                                 .mouse_active = frame->mouse_active,
                                 .reach_px = (float)P(frame, 9),
                                 .pinned_serial =
                                     frame->pinned_pane == index ? frame->pinned_serial : 0,
                                 .drawn = frame->drawn,
                                 .pane = index};
        draw_pane(frame, column, scale, &timeline, staggered, &pick);
        if (pick.pinned.valid)
            pinned = pick.pinned;
        if (pick.hovered_serial != 0) {
            frame->hovered_pane = index;
            frame->hovered_serial = pick.hovered_serial;
            hovered = pick.hovered;
        }
    }
    draw_status(frame);
    view_canvas_flush(canvas); /* overlays start a layer above the frame's text */
    if (frame->hovered_serial != 0)
        draw_details(frame, frame->hovered_pane, frame->hovered_serial, hovered);
    else if (frame->pinned_pane >= 0)
        draw_details(frame, frame->pinned_pane, frame->pinned_serial, pinned);
    view_canvas_flush(canvas);
    draw_story(frame, pinned.valid ? (int)pinned.y2 : frame->layout.height);
    view_canvas_flush(canvas);
    view_quiz_draw(frame);
    view_canvas_flush(canvas);
    draw_notice(frame);
    view_canvas_flush(canvas);
    if (frame->help)
        draw_help(frame);
    view_canvas_flush(canvas);
}
