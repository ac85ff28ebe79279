/* Headless frames: a software renderer drawing on a surface, so no display, video driver or
 * GPU is involved and the pixels depend only on the scenario, the seed, the time and the
 * fonts. The simulation runs to the requested time with no wall-clock budget. */
#include <stdio.h>
#include <stdlib.h>

#include "terminal_text.h"
#include "view_app.h"
#include "view_moment.h"

#define EXIT_USAGE 2
#define RECORD_FPS 30

static bool open_surface(ViewApp *app)
{
    if (TTF_Init() != 0) {
        fprintf(stderr, "idemsim view: cannot start SDL_ttf: %s\n", TTF_GetError());
        return false;
    }
    app->ttf_ready = true;
    app->surface =
        SDL_CreateRGBSurfaceWithFormat(0, app->width, app->height, 32, SDL_PIXELFORMAT_RGB888);
    if (app->surface != NULL)
        app->renderer = SDL_CreateSoftwareRenderer(app->surface);
    if (app->renderer == NULL) {
        fprintf(stderr, "idemsim view: cannot create a software renderer: %s\n", SDL_GetError());
        return false;
    }
    return view_relayout(app);
}

static void draw(ViewApp *app)
{
    for (uint32_t p = 0; p < app->session.pane_count; p++)
        view_pane_sample_keys(app->session.panes[p]);
    if (app->options.has_story) /* as a click on one of its messages would show it */
        view_story_refresh(app, app->frame.focus >= 0 ? app->frame.focus : 0, 0,
                           app->options.story_operation);
    view_end_stories_refresh(app);
    view_frame_draw(&app->frame);
    view_canvas_end_frame(&app->canvas);
    SDL_RenderFlush(app->renderer);
}

/* The clock as the class would move it: runs towards target_us, stops at a question, and
 * spends one of *presses (space or enter) on each step of a question on screen, as the
 * window's keys would. Without --predict the quiz is OVER and this is a plain advance. */
static void advance_as_the_class(ViewApp *app, SimTimeUs target_us, uint64_t *presses)
{
    for (;;) {
        if (!view_quiz_holds_clock(&app->quiz)) /* a revealed question still holds it */
            view_session_advance(&app->session, view_quiz_clock_limit(&app->quiz, target_us), 0);
        view_quiz_on_clock(&app->quiz, app->session.now_us, view_session_finished(&app->session));
        if (!view_quiz_holds_clock(&app->quiz) || *presses == 0)
            return;
        if (view_quiz_press(&app->quiz) == VIEW_QUIZ_PRESS_REVEAL)
            view_quiz_learn_answers(&app->quiz, app->session.panes, app->session.pane_count);
        (*presses)--;
    }
}

/* The frame of a run's own end: once every operation has settled, the room is owed the
 * verdict, not the last request's line. C37's clients send until 59.17 s of its 60 s, and
 * its log keeps committing offsets past the end, so no world has finished at 60 s and the
 * narration kept "shop[17] sends payment 894" under settled columns. The clock runs on
 * until the freshest line's hold is over (the window shows the same a moment later);
 * a run with operations still open keeps its own end. */
static void advance_past_last_words(ViewApp *app, uint64_t *presses)
{
    ViewSession *session = &app->session;
    if (!view_session_done(session) || view_session_finished(session) ||
        view_quiz_holds_clock(&app->quiz))
        return;
    SimTimeUs until_us = session->now_us;
    for (uint32_t p = 0; p < session->pane_count; p++) {
        const ViewPane *pane = session->panes[p];
        SimTimeUs over_us = pane->narration.t_us + pane->narration_hold_us;
        if (pane->narration.present && over_us > until_us)
            until_us = over_us;
    }
    if (until_us > session->now_us)
        advance_as_the_class(app, until_us, presses);
}

/* One line on stdout saying what the predict frame shows, for scripts and tests: which
 * question, whether it is asked or revealed, and how many counters were drawn as "?". */
static void print_quiz_state(const ViewApp *app)
{
    const ViewQuiz *quiz = &app->quiz;
    double t_ms = (double)app->session.now_us / SIM_US_PER_MS;
    const Question *shown = view_quiz_shown(quiz);
    if (shown != NULL) {
        char ask[QUESTION_ASK_LEN_MAX * 6]; /* every byte may become a six-byte escape */
        terminal_text_escape(ask, sizeof ask, shown->ask); /* the scenario's words, on a tty */
        printf("t %.0f ms: question %u of %u %s, %d counters shown as ?: %s\n", t_ms,
               quiz->current + 1, quiz->question_count,
               quiz->phase == VIEW_QUIZ_ASKING ? "asked" : "revealed", app->frame.hidden_drawn,
               ask);
    } else if (quiz->phase == VIEW_QUIZ_WAITING) {
        printf("t %.0f ms: no question on screen (next: question %u of %u at %.0f ms)\n", t_ms,
               quiz->current + 1, quiz->question_count,
               (double)view_quiz_at_us(quiz, quiz->current) / SIM_US_PER_MS);
    } else {
        printf("t %.0f ms: no question on screen (all %u asked)\n", t_ms, quiz->question_count);
    }
}

static bool write_record_frame(ViewApp *app)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/frame_%06llu.png", app->options.record_dir,
             (unsigned long long)++app->record_index);
    return view_png_save_surface(app->surface, path);
}

/* --record without a window: one frame per 1/30 s at the chosen speed, up to the end time. */
static bool record_frames(ViewApp *app, SimTimeUs end_us, uint64_t *presses)
{
    double step_us = app->session.speed * 1e6 / RECORD_FPS;
    for (uint64_t frame = 0;; frame++) {
        SimTimeUs target = (SimTimeUs)((double)frame * step_us);
        if (target > end_us)
            target = end_us;
        advance_as_the_class(app, target, presses);
        draw(app);
        if (!write_record_frame(app))
            return false;
        /* A question with no press left holds the clock: later frames would all be this one. */
        if (target >= end_us || view_session_finished(&app->session) ||
            view_quiz_holds_clock(&app->quiz))
            return true;
    }
}

int view_headless_run(ViewApp *app)
{
    if (!open_surface(app))
        return EXIT_USAGE;
    SimTimeUs end_us = app->options.has_at ? app->options.at_ms * SIM_US_PER_MS
                                           : (SimTimeUs)(app->scenario->duration_ms * 1000.0);
    if (app->options.moment != NULL) {
        /* The moment a quarter of the diagram down from its newest edge: what led to it
         * above, the first of what follows below. */
        SimTimeUs at_us;
        Mode mode;
        if (!view_moment_find(app->options.moment, app->scenario, app->session.modes,
                              app->session.pane_count, app->session.seed, &at_us, &mode)) {
            fprintf(stderr, "idemsim view: --moment %s: no mode of this run has one\n",
                    app->options.moment);
            return EXIT_USAGE;
        }
        end_us = at_us + view_session_window_us(&app->session) / 4;
        printf("moment %s: t %.3f s in %s; frame at %.3f s\n", app->options.moment,
               (double)at_us / 1e6, mode_name(mode), (double)end_us / 1e6);
    }
    uint64_t presses = app->options.presses;
    if (app->options.record_dir != NULL && !record_frames(app, end_us, &presses))
        return EXIT_USAGE;
    if (app->options.png_path == NULL)
        return EXIT_SUCCESS;
    advance_as_the_class(app, end_us, &presses);
    if (!app->options.has_at && app->options.moment == NULL)
        advance_past_last_words(app, &presses);
    draw(app);
    if (!view_png_save_surface(app->surface, app->options.png_path))
        return EXIT_USAGE;
    if (app->options.predict)
        print_quiz_state(app);
    /* As run does: a mode stopped by a budget is said, and the exit code is 2. */
    bool stopped = false;
    for (uint32_t p = 0; p < app->session.pane_count; p++) {
        char text[160];
        const ViewPane *pane = app->session.panes[p];
        if (view_pane_stop_text(pane, text, sizeof text) != NULL) {
            fprintf(stderr, "idemsim: %s: %s\n", mode_name(pane->mode), text);
            stopped = true;
        }
    }
    return stopped ? EXIT_USAGE : EXIT_SUCCESS;
}
