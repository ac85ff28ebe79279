/* The window. Each frame: handle input, turn the wall time since the last frame into
 * simulated time (speed x dt) and run the panes towards it within a budget, then draw.
 * The model is only read. With --record, frames advance by a fixed 1/30 s of wall time
 * so a video plays at the chosen speed however slow writing PNGs is. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "view_app.h"

#define EXIT_USAGE 2
#define FRAME_BUDGET_S 0.004 /* simulation work per frame: with drawing, under 1/60 s */
#define TARGET_FRAME_S (1.0 / 60.0)
#define RECORD_FPS 30
#define KEY_SAMPLE_ROWS_CHEAP 20000
#define NOTICE_S 2.5
/* A stretch with nothing due for longer than this much wall time is skipped, keeping this
 * much before the next event so the room sees it coming. */
#define QUIET_SKIP_WALL_S 3.0
#define QUIET_LEAD_WALL_S 1.0

struct ViewWindowLoop {
    bool running;
    bool vsync;
    bool screenshot;
    double started_s;
    double last_frame_s;
    double last_key_sample_s;
    uint64_t frames;
    double simulate_s_total, draw_s_total, draw_s_max, present_s_total;
    uint64_t in_flight_max; /* messages in flight in any pane, for --stats */
    uint32_t screenshots;   /* saved with p */
    int titled_question;    /* the question the window's title names: -1 none; +1000 revealed */
    bool click_pending;     /* picked once the next frame has found what lies under it */
};
typedef ViewWindowLoop Loop;

/* The scenario, and the question on screen with its state: the presenter's task switcher and
 * scripts driving the window (the tests' xdotool) see where the class is without a pixel. */
static void window_title(const ViewApp *app, char *title, size_t size)
{
    int written = snprintf(title, size, "idemsim \xE2\x80\x94 %s",
                           app->scenario->title[0] ? app->scenario->title : app->scenario->name);
    const ViewQuiz *quiz = &app->quiz;
    if (view_quiz_shown(quiz) != NULL && written > 0 && (size_t)written < size)
        snprintf(title + written, size - (size_t)written, " \xE2\x80\x94 question %u of %u%s",
                 quiz->current + 1, quiz->question_count,
                 quiz->phase == VIEW_QUIZ_REVEALED ? ", revealed" : "");
}

static void retitle(ViewApp *app, Loop *loop)
{
    const ViewQuiz *quiz = &app->quiz;
    int shown = view_quiz_shown(quiz) == NULL
                    ? -1
                    : (int)quiz->current + (quiz->phase == VIEW_QUIZ_REVEALED ? 1000 : 0);
    if (shown == loop->titled_question)
        return;
    loop->titled_question = shown;
    char title[256];
    window_title(app, title, sizeof title);
    SDL_SetWindowTitle(app->window, title);
}

static double wall_seconds(void)
{
    return (double)SDL_GetPerformanceCounter() / (double)SDL_GetPerformanceFrequency();
}

static void notify(ViewApp *app, const char *text)
{
    snprintf(app->frame.notice, sizeof app->frame.notice, "%s", text);
    app->notice_until = wall_seconds() + NOTICE_S;
}

/* ------------------------------------------------------------------ opening */

static bool open_window(ViewApp *app, bool *vsync)
{
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_EVENTS) != 0) {
        fprintf(stderr, "idemsim view: cannot start SDL video: %s\n", SDL_GetError());
        return false;
    }
    app->sdl_ready = true;
    if (TTF_Init() != 0) {
        fprintf(stderr, "idemsim view: cannot start SDL_ttf: %s\n", TTF_GetError());
        return false;
    }
    app->ttf_ready = true;
    char title[256];
    window_title(app, title, sizeof title);
    Uint32 flags =
        SDL_WINDOW_RESIZABLE | (app->options.fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0);
    app->window = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                                   app->width, app->height, flags);
    if (app->window == NULL) {
        fprintf(stderr, "idemsim view: cannot open a window: %s\n", SDL_GetError());
        return false;
    }
    SDL_SetWindowMinimumSize(app->window, 640, 360);
    app->renderer =
        SDL_CreateRenderer(app->window, -1, SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC);
    if (app->renderer == NULL)
        app->renderer = SDL_CreateRenderer(app->window, -1, SDL_RENDERER_SOFTWARE);
    if (app->renderer == NULL) {
        fprintf(stderr, "idemsim view: cannot create a renderer: %s\n", SDL_GetError());
        return false;
    }
    SDL_RendererInfo info;
    *vsync = SDL_GetRendererInfo(app->renderer, &info) == 0 &&
             (info.flags & SDL_RENDERER_PRESENTVSYNC) != 0;
    return true;
}

static bool open_canvas(ViewApp *app)
{
    SDL_GetRendererOutputSize(app->renderer, &app->width, &app->height);
    if (!view_relayout(app))
        return false;
    app->frame.interactive = true;
    return true;
}

/* ------------------------------------------------------------------ input */

static void close_story(ViewApp *app)
{
    app->frame.pinned_pane = -1;
    app->story.valid = false;
    app->options.has_story = false;
}

static void restart(ViewApp *app, uint64_t seed, const char *why)
{
    if (!view_session_restart(&app->session, seed)) {
        fprintf(stderr, "idemsim view: out of memory restarting\n");
        return;
    }
    close_story(app);
    view_quiz_restart(&app->quiz);
    char text[96];
    snprintf(text, sizeof text, "%s (seed %" PRIu64 ")", why, seed);
    notify(app, text);
}

static void change_speed(ViewApp *app, double factor)
{
    view_session_set_speed(&app->session, app->session.speed * factor);
    char text[64];
    double speed = app->session.speed;
    if (speed >= 0.25)
        snprintf(text, sizeof text, "speed %g\xC3\x97 (simulated seconds per second)", speed);
    else
        snprintf(text, sizeof text, "speed 1/%g\xC3\x97 (simulated seconds per second)", 1 / speed);
    notify(app, text);
}

static void set_focus(ViewApp *app, int focus)
{
    if (focus >= (int)app->session.pane_count)
        return;
    app->frame.focus = focus;
    view_relayout(app);
}

static void toggle_fullscreen(ViewApp *app)
{
    bool full = (SDL_GetWindowFlags(app->window) & SDL_WINDOW_FULLSCREEN_DESKTOP) != 0;
    SDL_SetWindowFullscreen(app->window, full ? 0 : SDL_WINDOW_FULLSCREEN_DESKTOP);
}

/* The click on the message (or mark) the frame just drew under it: its operation's story,
 * or on nothing, no story. */
static void pick_clicked(ViewApp *app)
{
    app->frame.pinned_pane = app->frame.hovered_pane;
    app->frame.pinned_serial = app->frame.hovered_serial;
    app->options.has_story = false; /* a click replaces --story's */
    view_story_refresh(app, app->frame.pinned_pane, app->frame.pinned_serial, 0);
    app->story_told_s = wall_seconds();
}

static void on_key(ViewApp *app, Loop *loop, SDL_Keycode key)
{
    bool answers = key == SDLK_SPACE || key == SDLK_RETURN || key == SDLK_KP_ENTER;
    ViewQuizPress press = answers ? view_quiz_press(&app->quiz) : VIEW_QUIZ_PRESS_UNUSED;
    if (press == VIEW_QUIZ_PRESS_REVEAL)
        view_quiz_learn_answers(&app->quiz, app->session.panes, app->session.pane_count);
    if (press != VIEW_QUIZ_PRESS_UNUSED) {
        app->frame.paused = false; /* the class asked to see it run on */
        return;
    }
    switch (key) {
    case SDLK_SPACE:
        app->frame.paused = !app->frame.paused;
        break;
    case SDLK_n:
    case SDLK_RIGHT:
        if (view_quiz_holds_clock(&app->quiz))
            break; /* a question is open: the answer must not be stepped into view */
        app->frame.paused = true;
        view_session_step(&app->session, app->frame.focus);
        break;
    case SDLK_PLUS:
    case SDLK_EQUALS:
    case SDLK_KP_PLUS:
        change_speed(app, 2.0);
        break;
    case SDLK_MINUS:
    case SDLK_KP_MINUS:
        change_speed(app, 0.5);
        break;
    case SDLK_r:
        restart(app, app->session.seed, "restarted");
        break;
    case SDLK_s:
        restart(app, app->session.seed + 1, "new seed");
        break;
    case SDLK_0:
        set_focus(app, -1);
        break;
    case SDLK_1:
        set_focus(app, 0);
        break;
    case SDLK_2:
        set_focus(app, 1);
        break;
    case SDLK_3:
        set_focus(app, 2);
        break;
    case SDLK_p:
        loop->screenshot = true;
        break;
    case SDLK_h:
        app->frame.help = !app->frame.help;
        break;
    case SDLK_f:
        toggle_fullscreen(app);
        break;
    case SDLK_ESCAPE: /* closes what is open over the picture first, then the window */
        if (app->frame.help)
            app->frame.help = false;
        else if (app->story.valid || app->options.has_story)
            close_story(app);
        else
            loop->running = false;
        break;
    case SDLK_q:
        loop->running = false;
        break;
    default:
        break;
    }
}

static void on_event(ViewApp *app, Loop *loop, const SDL_Event *event)
{
    switch (event->type) {
    case SDL_QUIT:
        loop->running = false;
        break;
    case SDL_KEYDOWN:
        on_key(app, loop, event->key.keysym.sym);
        break;
    case SDL_MOUSEMOTION:
        app->frame.mouse_x = event->motion.x;
        app->frame.mouse_y = event->motion.y;
        app->frame.mouse_active = true;
        break;
    case SDL_MOUSEBUTTONDOWN:
        if (event->button.button != SDL_BUTTON_LEFT)
            break;
        /* What lies under the click is known once a frame has been drawn with the mouse
         * there: a tap on a touch screen (or a click the same frame as the move) comes
         * before any frame has hovered that point. */
        app->frame.mouse_x = event->button.x;
        app->frame.mouse_y = event->button.y;
        app->frame.mouse_active = true;
        loop->click_pending = true;
        break;
    case SDL_WINDOWEVENT:
        if (event->window.event == SDL_WINDOWEVENT_LEAVE)
            app->frame.mouse_active = false;
        if (event->window.event == SDL_WINDOWEVENT_SIZE_CHANGED) {
            SDL_GetRendererOutputSize(app->renderer, &app->width, &app->height);
            view_relayout(app);
        }
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------------ frames */

static void advance(ViewApp *app, double dt_s)
{
    ViewSession *session = &app->session;
    if (app->frame.paused || view_session_finished(session) || view_quiz_holds_clock(&app->quiz))
        return;
    if (dt_s > 0.1)
        dt_s = 0.1; /* after a stall (window dragged, debugger) do not jump ahead */
    SimTimeUs skipped =
        view_session_skip_quiet(session, (SimTimeUs)(session->speed * QUIET_SKIP_WALL_S * 1e6),
                                (SimTimeUs)(session->speed * QUIET_LEAD_WALL_S * 1e6),
                                view_quiz_clock_limit(&app->quiz, SIM_TIME_NEVER));
    if (skipped > 0) {
        char text[128];
        snprintf(text, sizeof text, "skipped %.1f s in which nothing happens (a band marks it)",
                 (double)skipped / 1e6);
        notify(app, text);
    }
    SimTimeUs asked = (SimTimeUs)(session->speed * dt_s * 1e6);
    SimTimeUs before = session->now_us;
    double budget = app->options.record_dir != NULL ? 0 : FRAME_BUDGET_S;
    view_session_advance(session, view_quiz_clock_limit(&app->quiz, session->now_us + asked),
                         budget);
    double achieved = dt_s > 0 ? (double)(session->now_us - before) / 1e6 / dt_s : 0;
    session->achieved_speed = 0.9 * session->achieved_speed + 0.1 * achieved;
}

/* The key store is visited row by row; a big one is re-read twice a second, not per frame. */
static void sample_keys(ViewApp *app, Loop *loop, double now_s)
{
    bool cheap = true;
    for (uint32_t p = 0; p < app->session.pane_count; p++)
        cheap = cheap && world_key_store_rows(app->session.panes[p]->world) < KEY_SAMPLE_ROWS_CHEAP;
    if (!cheap && now_s - loop->last_key_sample_s < 0.5)
        return;
    loop->last_key_sample_s = now_s;
    for (uint32_t p = 0; p < app->session.pane_count; p++)
        view_pane_sample_keys(app->session.panes[p]);
}

static void save_screenshot(ViewApp *app, Loop *loop)
{
    char path[256];
    /* Paused frames share a time: number them rather than overwrite the last one. */
    for (int n = 1; n < 1000; n++) {
        snprintf(path, sizeof path, "idemsim-%s-seed%" PRIu64 "-t%" PRIu64 "%s%.0d.png",
                 app->scenario->name, app->session.seed, app->session.now_us / SIM_US_PER_MS,
                 n > 1 ? "-" : "", n > 1 ? n : 0);
        if (access(path, F_OK) != 0)
            break;
    }
    char text[320];
    if (view_png_save_renderer(app->renderer, app->width, app->height, path)) {
        snprintf(text, sizeof text, "saved %s", path);
        loop->screenshots++;
    } else
        snprintf(text, sizeof text, "could not save %s", path);
    notify(app, text);
}

/* An open story follows the clock, retold twice a second (it reruns a world). */
static void follow_story(ViewApp *app, double now_s)
{
    bool open = app->story.valid || app->options.has_story;
    if (!open || now_s - app->story_told_s < 0.5 ||
        (app->story.valid && app->story.as_of_us == view_session_clock(&app->session)))
        return;
    app->story_told_s = now_s;
    if (app->options.has_story)
        view_story_refresh(app, app->frame.focus >= 0 ? app->frame.focus : 0, 0,
                           app->options.story_operation);
    else
        view_story_refresh(app, app->story.pane, 0, app->story.operation);
}

static bool render(ViewApp *app, Loop *loop, double now_s)
{
    sample_keys(app, loop, now_s);
    follow_story(app, now_s);
    view_end_stories_refresh(app);
    if (now_s > app->notice_until)
        app->frame.notice[0] = '\0';
    view_frame_draw(&app->frame);
    view_canvas_end_frame(&app->canvas);
    if (loop->screenshot) {
        loop->screenshot = false;
        save_screenshot(app, loop);
    }
    if (app->options.record_dir != NULL) {
        char path[4096];
        snprintf(path, sizeof path, "%s/frame_%06llu.png", app->options.record_dir,
                 (unsigned long long)++app->record_index);
        if (!view_png_save_renderer(app->renderer, app->width, app->height, path))
            return false;
    }
    return true;
}

static void print_stats(const ViewApp *app, const Loop *loop, double now_s)
{
    double elapsed = now_s - loop->started_s;
    double frames = loop->frames ? (double)loop->frames : 1;
    fprintf(stderr,
            "idemsim view: %" PRIu64 " frames in %.2f s = %.1f frames/s; per frame: simulate "
            "%.2f ms, draw %.2f ms (max %.2f), present %.2f ms; simulated %.2f s at speed %g "
            "(achieved %.2f); up to %" PRIu64 " messages in flight in a pane\n",
            loop->frames, elapsed, elapsed > 0 ? (double)loop->frames / elapsed : 0,
            loop->simulate_s_total / frames * 1e3, loop->draw_s_total / frames * 1e3,
            loop->draw_s_max * 1e3, loop->present_s_total / frames * 1e3,
            (double)app->session.now_us / 1e6, app->session.speed, app->session.achieved_speed,
            loop->in_flight_max);
    /* Where the controls left the view, so a scripted session can check each key's effect. */
    char quiz[64] = "";
    const ViewQuiz *predict = &app->quiz;
    if (predict->question_count > 0 && predict->phase != VIEW_QUIZ_OVER)
        snprintf(quiz, sizeof quiz, ", question %u of %u %s", predict->current + 1,
                 predict->question_count,
                 predict->phase == VIEW_QUIZ_ASKING     ? "asked"
                 : predict->phase == VIEW_QUIZ_REVEALED ? "revealed"
                                                        : "next");
    else if (predict->question_count > 0)
        snprintf(quiz, sizeof quiz, ", all %u questions asked", predict->question_count);
    fprintf(stderr,
            "idemsim view: state: paused %s, focus %d, speed %g, seed %" PRIu64
            ", help %s, screenshots %u%s\n",
            app->frame.paused ? "yes" : "no", app->frame.focus + 1, app->session.speed,
            app->session.seed, app->frame.help ? "on" : "off", loop->screenshots, quiz);
}

static bool run_frame(ViewApp *app, Loop *loop)
{
    SDL_Event event;
    while (SDL_PollEvent(&event))
        on_event(app, loop, &event);
    double now_s = wall_seconds();
    double dt = app->options.record_dir != NULL ? 1.0 / RECORD_FPS : now_s - loop->last_frame_s;
    loop->last_frame_s = now_s;
    advance(app, dt);
    view_quiz_on_clock(&app->quiz, app->session.now_us, view_session_finished(&app->session));
    retitle(app, loop);
    for (uint32_t p = 0; p < app->session.pane_count; p++) {
        uint64_t in_flight = world_messages_in_flight(app->session.panes[p]->world);
        loop->in_flight_max = in_flight > loop->in_flight_max ? in_flight : loop->in_flight_max;
    }
    double simulated_s = wall_seconds();
    if (!render(app, loop, now_s))
        return false;
    double drawn_s = wall_seconds();
    SDL_RenderPresent(app->renderer);
    double presented_s = wall_seconds();
    loop->frames++;
    loop->simulate_s_total += simulated_s - now_s;
    loop->draw_s_total += drawn_s - simulated_s;
    loop->draw_s_max =
        drawn_s - simulated_s > loop->draw_s_max ? drawn_s - simulated_s : loop->draw_s_max;
    loop->present_s_total += presented_s - drawn_s;
    if (loop->click_pending) { /* the frame just drawn found what lies under the click */
        loop->click_pending = false;
        pick_clicked(app);
    }
    return true;
}

/* ------------------------------------------------------------------ one frame at a time */

ViewWindowLoop *view_window_open(ViewApp *app)
{
    Loop *loop = calloc(1, sizeof *loop);
    if (loop == NULL) {
        fprintf(stderr, "idemsim view: out of memory\n");
        return NULL;
    }
    loop->running = true;
    loop->titled_question = -1;
    if (!open_window(app, &loop->vsync) || !open_canvas(app)) {
        free(loop);
        return NULL;
    }
    loop->started_s = wall_seconds();
    loop->last_frame_s = loop->started_s;
    return loop;
}

ViewWindowStatus view_window_frame(ViewApp *app, ViewWindowLoop *loop)
{
    if (!run_frame(app, loop))
        return VIEW_WINDOW_FAILED;
    bool expired = app->options.has_quit_after && (wall_seconds() - loop->started_s) * 1000.0 >=
                                                      (double)app->options.quit_after_ms;
    return loop->running && !expired ? VIEW_WINDOW_RUNNING : VIEW_WINDOW_CLOSED;
}

void view_window_close(ViewApp *app, ViewWindowLoop *loop)
{
    if (loop != NULL && app->options.stats)
        print_stats(app, loop, wall_seconds());
    free(loop);
}

int view_window_run(ViewApp *app)
{
    Loop *loop = view_window_open(app);
    if (loop == NULL)
        return EXIT_USAGE;
    ViewWindowStatus status = VIEW_WINDOW_RUNNING;
    while (status == VIEW_WINDOW_RUNNING) {
        double frame_started_s = wall_seconds();
        status = view_window_frame(app, loop);
        /* Without vsync, the blocking loop paces itself; a host with its own frame clock
         * (the browser's animation frames) calls view_window_frame and must not sleep. */
        double work = wall_seconds() - frame_started_s;
        if (status == VIEW_WINDOW_RUNNING && !loop->vsync && work < TARGET_FRAME_S)
            SDL_Delay((Uint32)((TARGET_FRAME_S - work) * 1000.0));
    }
    view_window_close(app, loop);
    return status == VIEW_WINDOW_FAILED ? EXIT_USAGE : EXIT_SUCCESS;
}
