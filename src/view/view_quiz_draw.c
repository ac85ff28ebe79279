/* The question card of --predict, drawn under the counters (so the room sees which ones
 * turned into "?") over the balances and the key store, whose verdicts are hidden anyway
 * and whose completed keys would give the keyed column's answer away; the sequence diagram,
 * which holds what the room needs to predict (a lost answer, a slow consumer), stays in
 * sight below, unless the card needs more room than the panels give. Type sizes are
 * the layout's (unit 1.5 at 1920x1080): the question at 36 px, everything else at 24 px or
 * more, readable from the back row. Once revealed, the card lists every revealed metric's
 * final value per mode (what `idemsim run` prints; at the next question's time, for all but
 * the last), in the report's words: the answer to "how many will be charged twice" is
 * known at the end of the run, not at the question. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "view_frame.h"
#include "view_narration.h"

#define METRIC_LINE_LEN_MAX 256

static int P(const ViewFrame *frame, float length)
{
    return view_layout_px(&frame->layout, length);
}

static SDL_Color C(ViewColor color)
{
    return view_canvas_color(color, 255);
}

/* Where the card goes: across every column from the top of the balances to the bottom of
 * the frame's panes. With one wide pane (panels in a sidebar) the sidebar is too narrow for
 * the question, so the card spans the diagram from its top instead. */
static ViewRect card_area(const ViewFrame *frame)
{
    const ViewLayout *layout = &frame->layout;
    const ViewPaneLayout *first = &layout->panes[0];
    const ViewPaneLayout *last = &layout->panes[layout->pane_count - 1];
    int top = first->wide ? first->sequence.y : first->balances.y;
    int left = first->wide ? first->sequence.x : first->pane.x;
    int right = last->pane.x + last->pane.w;
    int visible = view_frame_visible_width(frame) - P(frame, 8); /* left of a host's panel */
    if (frame->covered_right > 0 && right > visible)
        right = visible;
    return (ViewRect){left, top, right - left, layout->status.y - top};
}

/* Money metrics as money, the rest as numbers; a dash for what the world cannot say. */
static void metric_text(const ViewQuiz *quiz, uint32_t pane, uint32_t reveal_index,
                        const char *metric, char *buffer, size_t size)
{
    double value = 0;
    if (!view_quiz_answer(quiz, pane, reveal_index, &value))
        snprintf(buffer, size, "\xE2\x80\x93");
    else if (strcmp(metric, "double_amount") == 0 || strcmp(metric, "lost_amount") == 0)
        view_narration_money(buffer, size, (int64_t)value, false);
    else if (strcmp(metric, "balance_error") == 0) /* signed: +165.00 is money not charged */
        view_narration_money(buffer, size, (int64_t)value, true);
    else
        snprintf(buffer, size, "%g", value);
}

/* "double:  at-most-once 0 · at-least-once 3 · idempotent 0", the run's final figures, in
 * the report's words rather than the metric's id. */
static void metric_line(const ViewFrame *frame, uint32_t reveal_index, char *line, size_t size)
{
    const char *metric = scenario_metric_names[view_quiz_shown(frame->quiz)->reveal[reveal_index]];
    const ViewSession *session = frame->session;
    char words[96];
    size_t used = (size_t)snprintf(
        line, size,
        "%s:  ", view_quiz_metric_words(session->scenario, metric, words, sizeof words));
    for (uint32_t p = 0; p < session->pane_count && used < size; p++) {
        char value[48];
        metric_text(frame->quiz, p, reveal_index, metric, value, sizeof value);
        int n = snprintf(line + used, size - used, "%s%s %s", p > 0 ? "  \xC2\xB7  " : "",
                         mode_name(session->panes[p]->mode), value);
        used += n > 0 ? (size_t)n : 0;
    }
}

static void reveal_list(const Scenario *scenario, const Question *question, char *text, size_t size)
{
    size_t used = 0;
    text[0] = '\0';
    for (uint32_t i = 0; i < question->reveal_count && used < size; i++) {
        char words[96];
        int n =
            snprintf(text + used, size - used, "%s%s", i > 0 ? ", " : "",
                     view_quiz_metric_words(scenario, scenario_metric_names[question->reveal[i]],
                                            words, sizeof words));
        used += n > 0 ? (size_t)n : 0;
    }
}

static void hint_text(const ViewFrame *frame, char *hint, size_t size)
{
    const ViewQuiz *quiz = frame->quiz;
    const Question *question = view_quiz_shown(quiz);
    char metrics[256];
    reveal_list(frame->session->scenario, question, metrics, sizeof metrics);
    if (quiz->phase == VIEW_QUIZ_ASKING) {
        snprintf(hint, size, "Vote now. Hidden: %s.   space / enter: reveal", metrics);
    } else if (question->has_answer_at) {
        snprintf(hint, size,
                 "At %.1f s, when the answer is known.   space / enter: run on and "
                 "watch it happen",
                 (double)view_quiz_answer_at_us(quiz, quiz->current) / 1e6);
    } else if (quiz->current + 1 < quiz->question_count) {
        snprintf(hint, size,
                 "When question %u is asked, at %.1f s.   space / enter: run on and watch it "
                 "happen",
                 quiz->current + 2, (double)view_quiz_at_us(quiz, quiz->current + 1) / 1e6);
    } else {
        snprintf(hint, size, "At the end of the run.   space / enter: run on and watch it happen");
    }
}

void view_quiz_draw(ViewFrame *frame)
{
    if (frame->quiz == NULL || view_quiz_shown(frame->quiz) == NULL)
        return;
    ViewCanvas *canvas = frame->canvas;
    const ViewQuiz *quiz = frame->quiz;
    const Question *question = view_quiz_shown(quiz);
    bool revealed = quiz->phase == VIEW_QUIZ_REVEALED;
    ViewRect area = card_area(frame);
    int pad = P(frame, 20);
    ViewRect card = {area.x + P(frame, 8), area.y, area.w - 2 * P(frame, 8), 0};
    int text_w = card.w - 2 * pad;
    int heading_h = view_canvas_text_height(canvas, VIEW_FONT_HEADER);
    int ask_h = view_canvas_text_height(canvas, VIEW_FONT_NUMBER_SMALL);
    int body_h = view_canvas_text_height(canvas, VIEW_FONT_BODY);
    int ask_lines =
        view_canvas_text_line_count(canvas, VIEW_FONT_NUMBER_SMALL, text_w, question->ask);
    ask_lines = ask_lines < 1 ? 1 : ask_lines > 6 ? 6 : ask_lines;
    int metric_rows = revealed ? (int)question->reveal_count : 0;
    card.h = 2 * pad + heading_h + P(frame, 6) + ask_lines * ask_h + P(frame, 10) +
             metric_rows * (body_h + P(frame, 4)) + body_h;
    int bottom = area.y + area.h - P(frame, 8);
    if (card.y + card.h > bottom) /* a small window: keep the card whole, over the counters */
        card.y = bottom - card.h > frame->layout.title.h ? bottom - card.h : frame->layout.title.h;

    frame->card_logged_from = canvas->logged_count;
    ViewColor accent = revealed ? VIEW_COLOR_OK : VIEW_COLOR_WARNING;
    view_canvas_round(canvas, card, (float)P(frame, 10), C(accent));
    int border = P(frame, 3);
    view_canvas_round(
        canvas,
        (ViewRect){card.x + border, card.y + border, card.w - 2 * border, card.h - 2 * border},
        (float)P(frame, 8), C(VIEW_COLOR_PANEL_RAISED));
    int x = card.x + pad, y = card.y + pad;
    char heading[96];
    snprintf(heading, sizeof heading, "%s %u of %u  \xC2\xB7  t %.1f s",
             revealed ? "REVEALED: QUESTION" : "PREDICT: QUESTION", quiz->current + 1,
             quiz->question_count, (double)view_quiz_at_us(quiz, quiz->current) / 1e6);
    view_canvas_text(canvas, VIEW_FONT_HEADER, C(accent), x, y, VIEW_ALIGN_LEFT, heading);
    y += heading_h + P(frame, 6);
    view_canvas_text_lines(canvas, VIEW_FONT_NUMBER_SMALL, C(VIEW_COLOR_TEXT), x, y, text_w,
                           ask_lines, question->ask);
    y += ask_lines * ask_h + P(frame, 10);
    for (int i = 0; i < metric_rows; i++, y += body_h + P(frame, 4)) {
        char line[METRIC_LINE_LEN_MAX];
        metric_line(frame, (uint32_t)i, line, sizeof line);
        view_canvas_text_fit(canvas, VIEW_FONT_BODY, C(VIEW_COLOR_TEXT), x, y, VIEW_ALIGN_LEFT,
                             text_w, line);
    }
    char hint[256];
    hint_text(frame, hint, sizeof hint);
    view_canvas_text_fit(canvas, VIEW_FONT_BODY, C(VIEW_COLOR_TEXT_DIM), x, y, VIEW_ALIGN_LEFT,
                         text_w, hint);
}
