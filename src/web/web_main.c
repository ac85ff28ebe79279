/* The browser edition's entry points, called by the page (web.js) through Module.ccall.
 * They drive the same ViewApp as `idemsim view`: one SDL window on the page's canvas, one
 * view_window_frame per animation frame, and a session rebuilt whenever the page loads
 * another scenario, keeping the window and its fonts. The scenario library and the fonts
 * are files in Emscripten's in-memory file system (packed into idemsim.data at build time).
 * A returned string stays valid until the next call of the same function. */
#include <dirent.h>
#include <emscripten.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_svg.h"
#include "view_app.h"

#define LIBRARY_DIR "/scenarios"
#define LIBRARY_FILES_MAX 128
#define EXIT_USAGE 2
#define SVG_OPERATIONS 3 /* as `idemsim run --svg` draws by default */

static ViewApp *app;
static ViewWindowLoop *window_loop;
static ViewDrawnItems drawn_items; /* what the last frame drew that a click picks */

/* ------------------------------------------------------------------ returned text */

/* A growing string for one entry point's answer; the previous answer is freed. */
typedef struct {
    char *text;
    size_t length;
    FILE *stream;
} Answer;

static FILE *answer_begin(Answer *answer)
{
    if (answer->stream != NULL)
        fclose(answer->stream);
    free(answer->text);
    answer->text = NULL;
    answer->length = 0;
    answer->stream = open_memstream(&answer->text, &answer->length);
    return answer->stream;
}

static const char *answer_end(Answer *answer)
{
    if (answer->stream == NULL)
        return "";
    fclose(answer->stream);
    answer->stream = NULL;
    return answer->text != NULL ? answer->text : "";
}

/* ------------------------------------------------------------------ the scenario library */

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* [{"file": "01_lost_answer.json", "name": ..., "title": ...}, ...] in file order, which is
 * the curriculum's (C1 onward); files that do not load are left out, with their errors on
 * the console. */
EMSCRIPTEN_KEEPALIVE const char *web_library(void)
{
    static Answer answer;
    FILE *stream = answer_begin(&answer);
    char *names[LIBRARY_FILES_MAX];
    size_t count = 0;
    DIR *dir = opendir(LIBRARY_DIR);
    for (struct dirent *entry; dir != NULL && (entry = readdir(dir)) != NULL;) {
        size_t length = strlen(entry->d_name);
        if (count < LIBRARY_FILES_MAX && length > 5 &&
            strcmp(entry->d_name + length - 5, ".json") == 0)
            names[count++] = strdup(entry->d_name);
    }
    if (dir != NULL)
        closedir(dir);
    qsort(names, count, sizeof *names, compare_names);
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    fputc('[', stream);
    bool first = true;
    for (size_t i = 0; i < count; i++) {
        char path[512];
        snprintf(path, sizeof path, LIBRARY_DIR "/%s", names[i]);
        if (scenario != NULL && errors != NULL &&
            scenario_load_file(path, NULL, 0, scenario, errors)) {
            fputs(first ? "\n" : ",\n", stream);
            first = false;
            fputs("{\"file\": ", stream);
            report_write_json_string(stream, names[i]);
            fputs(", \"name\": ", stream);
            report_write_json_string(stream, scenario->name);
            fputs(", \"title\": ", stream);
            report_write_json_string(stream, scenario->title);
            fputc('}', stream);
        } else if (errors != NULL) {
            scenario_print_errors(stderr, path, errors);
        }
        free(names[i]);
    }
    fputs("]\n", stream);
    free(scenario);
    free(errors);
    return answer_end(&answer);
}

/* ------------------------------------------------------------------ loading */

static Answer error_answer; /* the errors of the last web_load, empty when it loaded */

static void on_animation_frame(void)
{
    /* A page cannot close itself: q and Esc end the desktop window, here they do nothing. */
    if (app->session_ready)
        view_window_frame(app, window_loop);
}

static bool create_app(void)
{
    app = calloc(1, sizeof *app);
    if (app == NULL)
        return false;
    /* The command line's defaults (speed, size, no focus), from its own parser. */
    char *argv[] = {"page", NULL};
    view_options_parse(1, argv, &app->options);
    app->options.scenario_path = NULL;
    return true;
}

/* The window takes the canvas's size on the page. SDL's emscripten backend treats a canvas
 * whose CSS size differs from the size asked for as sized by the page, and from then on
 * follows that CSS size on every resize event; so ask for the smallest size the layout
 * supports and let the page's CSS decide. */
static bool open_window(void)
{
    app->width = 640;
    app->height = 360;
    /* Keys reach the view only while the canvas has the focus, so typing in the page's
     * fields is not taken for view commands. */
    SDL_SetHint(SDL_HINT_EMSCRIPTEN_KEYBOARD_ELEMENT, "#canvas");
    window_loop = view_window_open(app);
    if (window_loop == NULL)
        return false;
    app->canvas.log_texts = true; /* for web_drawn */
    emscripten_set_main_loop(on_animation_frame, 0, 0);
    return true;
}

static void set_title(void)
{
    char title[256];
    snprintf(title, sizeof title, "idemsim \xE2\x80\x94 %s",
             app->scenario->title[0] ? app->scenario->title : app->scenario->name);
    SDL_SetWindowTitle(app->window, title);
}

/* Loads JSON text (named source_name in error messages), then shows it from time 0 with seed
 * (empty: the scenario's own), speed (<= 0: the default) and focus (-1: every mode); predict
 * stops at the scenario's questions as `idemsim view --predict` does (a scenario without
 * questions runs as without it: web_state says it has none), projector is --projector's
 * back-row type. On bad input the running scenario stays and web_errors() lists every error
 * with its $.path. Returns 0, or 2 for bad input, or 1 when memory, the window or the fonts
 * failed (the reason is on the console). */
EMSCRIPTEN_KEEPALIVE int web_load(const char *source_name, const char *text, const char *seed,
                                  double speed, int focus, int predict, int projector)
{
    if (app == NULL && !create_app())
        return 1;
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    if (scenario == NULL || errors == NULL) {
        free(scenario);
        free(errors);
        return 1;
    }
    FILE *error_stream = answer_begin(&error_answer);
    bool loaded = scenario_load_text(text, strlen(text), NULL, 0, scenario, errors);
    if (!loaded && error_stream != NULL)
        scenario_print_errors(error_stream, source_name, errors);
    answer_end(&error_answer);
    free(errors);
    if (!loaded) {
        free(scenario);
        return EXIT_USAGE;
    }
    if (app->session_ready)
        view_session_release(&app->session);
    app->session_ready = false;
    free(app->scenario);
    app->scenario = scenario;
    uint64_t chosen_seed = seed[0] != '\0' ? strtoull(seed, NULL, 10) : scenario->seed;
    double chosen_speed = speed > 0 ? speed : app->options.speed;
    if (!view_session_init(&app->session, scenario, scenario->modes, scenario->mode_count,
                           chosen_seed, chosen_speed))
        return 1;
    app->session_ready = true;
    app->frame.canvas = &app->canvas;
    app->frame.session = &app->session;
    app->frame.focus = focus >= 0 && focus < (int)scenario->mode_count ? focus : -1;
    app->frame.paused = false;
    app->frame.help = false;
    app->frame.pinned_pane = -1;
    app->frame.hovered_pane = -1;
    app->frame.in_browser = true;
    app->options.projector = projector != 0;
    app->options.predict = predict != 0 && scenario->question_count > 0;
    view_quiz_init(&app->quiz, scenario->questions,
                   app->options.predict ? scenario->question_count : 0);
    app->frame.quiz = &app->quiz;
    app->story.valid = false;
    app->frame.story = &app->story;
    app->frame.drawn = &drawn_items;
    if (window_loop == NULL)
        return open_window() ? 0 : 1;
    set_title();
    return view_relayout(app) ? 0 : 1;
}

/* The errors of the last web_load, one per line ("FILE: $.path: message"); empty when it
 * loaded. */
EMSCRIPTEN_KEEPALIVE const char *web_errors(void)
{
    return error_answer.text != NULL ? error_answer.text : "";
}

/* ------------------------------------------------------------------ controls */

/* The page's controls do what the keys do (view_window.c), through the same session API. */

EMSCRIPTEN_KEEPALIVE void web_set_speed(double speed)
{
    if (app != NULL && app->session_ready)
        view_session_set_speed(&app->session, speed);
}

EMSCRIPTEN_KEEPALIVE void web_set_focus(int focus)
{
    if (app == NULL || !app->session_ready || focus >= (int)app->session.pane_count)
        return;
    app->frame.focus = focus < 0 ? -1 : focus;
    view_relayout(app);
}

EMSCRIPTEN_KEEPALIVE void web_set_paused(int paused)
{
    if (app != NULL)
        app->frame.paused = paused != 0;
}

/* --projector's preset on the page's canvas: the back row's type and a taller diagram. */
EMSCRIPTEN_KEEPALIVE void web_set_projector(int projector)
{
    if (app == NULL || !app->session_ready)
        return;
    app->options.projector = projector != 0;
    view_relayout(app);
}

/* How many of the canvas's pixels at its right edge the page's panel lies over (on a
 * laptop the editor opens over the picture): the help, the story and the question card are
 * drawn left of it, whole. */
EMSCRIPTEN_KEEPALIVE void web_set_covered_right(int pixels)
{
    if (app != NULL)
        app->frame.covered_right = pixels;
}

EMSCRIPTEN_KEEPALIVE void web_set_help(int shown)
{
    if (app != NULL)
        app->frame.help = shown != 0;
}

/* What space does while a question is on screen (reveal, then run on), for the page's
 * button; returns 0 when no question was on screen. */
EMSCRIPTEN_KEEPALIVE int web_quiz_press(void)
{
    if (app == NULL || !app->session_ready)
        return 0;
    ViewQuizPress press = view_quiz_press(&app->quiz);
    if (press == VIEW_QUIZ_PRESS_REVEAL)
        view_quiz_learn_answers(&app->quiz, app->session.panes, app->session.pane_count);
    if (press != VIEW_QUIZ_PRESS_UNUSED)
        app->frame.paused = false;
    return press != VIEW_QUIZ_PRESS_UNUSED;
}

/* Starts over at time 0 with seed (a decimal string; empty: the current one). */
EMSCRIPTEN_KEEPALIVE int web_restart(const char *seed)
{
    if (app == NULL || !app->session_ready)
        return 1;
    uint64_t chosen = seed[0] != '\0' ? strtoull(seed, NULL, 10) : app->session.seed;
    app->frame.pinned_pane = -1;
    app->story.valid = false;
    view_quiz_restart(&app->quiz);
    return view_session_restart(&app->session, chosen) ? 0 : 1;
}

/* Runs every mode to simulated time at_ms at once (no wall-clock budget, as the headless
 * renderer does) and pauses there: a link to a moment opens on that moment. With predict,
 * no further than the first question not yet asked, which is then asked: a link cannot
 * skip a vote. */
EMSCRIPTEN_KEEPALIVE void web_run_to(double at_ms)
{
    if (app == NULL || !app->session_ready || at_ms < 0)
        return;
    SimTimeUs target_us = view_quiz_clock_limit(&app->quiz, (SimTimeUs)(at_ms * SIM_US_PER_MS));
    if (target_us > app->session.now_us && !view_quiz_holds_clock(&app->quiz))
        view_session_advance(&app->session, target_us, 0);
    view_quiz_on_clock(&app->quiz, app->session.now_us, view_session_finished(&app->session));
    app->frame.paused = true;
}

static const char *quiz_phase_name(ViewQuizPhase phase)
{
    switch (phase) {
    case VIEW_QUIZ_WAITING:
        return "waiting";
    case VIEW_QUIZ_ASKING:
        return "asking";
    case VIEW_QUIZ_REVEALED:
        return "revealed";
    case VIEW_QUIZ_OVER:
        break;
    }
    return "over";
}

/* "predict": the questions and what the canvas hides now, so the page hides the same in
 * its own counters (the footer once printed the answer before the vote). */
static void write_quiz_state(FILE *stream)
{
    const ViewQuiz *quiz = &app->quiz;
    unsigned hidden = view_quiz_hidden(quiz);
    static const struct {
        unsigned bit;
        const char *name;
    } hidden_names[] = {{VIEW_QUIZ_HIDE_OK, "ok"},
                        {VIEW_QUIZ_HIDE_DOUBLE, "double"},
                        {VIEW_QUIZ_HIDE_LOST, "lost"},
                        {VIEW_QUIZ_HIDE_PHANTOM, "phantom"},
                        {VIEW_QUIZ_HIDE_MISMATCH, "mismatch"},
                        {VIEW_QUIZ_HIDE_BALANCES, "amounts"},
                        {VIEW_QUIZ_HIDE_KEY_STORE, "key_store"}};
    fprintf(stream,
            ", \"predict\": %s, \"projector\": %s, \"questions\": %" PRIu32
            ", \"question\": {\"index\": %" PRIu32 ", \"phase\": \"%s\", \"hidden\": [",
            app->options.predict ? "true" : "false", app->options.projector ? "true" : "false",
            app->scenario->question_count, quiz->current, quiz_phase_name(quiz->phase));
    bool first = true;
    for (size_t i = 0; i < sizeof hidden_names / sizeof hidden_names[0]; i++) {
        if ((hidden & hidden_names[i].bit) != 0) {
            fprintf(stream, "%s\"%s\"", first ? "" : ", ", hidden_names[i].name);
            first = false;
        }
    }
    fprintf(stream, "]}, \"help\": %s", app->frame.help ? "true" : "false");
}

/* ------------------------------------------------------------------ state */

/* What the view shows, for the page's controls, its link and its tests: the clock, the
 * controls, and per mode the world's live metrics (the counters drawn on the canvas; once
 * "finished", the numbers `idemsim run` prints). */
EMSCRIPTEN_KEEPALIVE const char *web_state(void)
{
    static Answer answer;
    FILE *stream = answer_begin(&answer);
    if (app == NULL || !app->session_ready) {
        fputs("{}", stream);
        return answer_end(&answer);
    }
    const ViewSession *session = &app->session;
    fputs("{\"scenario\": ", stream);
    report_write_json_string(stream, app->scenario->name);
    fprintf(stream,
            ", \"now_ms\": %" PRIu64 ", \"paused\": %s, \"speed\": %.17g, \"seed\": \"%" PRIu64
            "\", \"focus\": %d, \"finished\": %s",
            session->now_us / SIM_US_PER_MS, app->frame.paused ? "true" : "false", session->speed,
            session->seed, app->frame.focus, view_session_finished(session) ? "true" : "false");
    write_quiz_state(stream);
    fputs(", \"modes\": [", stream);
    for (uint32_t p = 0; p < session->pane_count; p++) {
        const World *world = session->panes[p]->world;
        const Metrics *metrics = world_metrics(world);
        fprintf(stream,
                "%s{\"mode\": \"%s\", \"finished\": %s, \"operations\": %" PRIu64
                ", \"settled\": %" PRIu64 ", \"doubles_so_far\": %" PRIu64,
                p ? ", " : "", mode_name(session->modes[p]),
                world_finished(world) ? "true" : "false", metrics->operations,
                metrics->operations_settled, metrics->doubles_so_far);
        for (uint32_t o = 0; o < OUTCOME_COUNT; o++)
            fprintf(stream, ", \"%s\": %" PRIu64, outcome_name((Outcome)o), metrics->outcomes[o]);
        fprintf(stream, ", \"double_amount\": %" PRId64 ", \"lost_amount\": %" PRId64 "}",
                metrics->double_amount, metrics->lost_amount);
    }
    fputs("]}", stream);
    return answer_end(&answer);
}

/* What the last frame drew, in the canvas's pixels, for the page's test to point and read
 * as a person would: "items", the messages and marks a click picks (each with its session
 * pane, serial and operation, its segment from x1,y1 to x2,y2), and "texts", every string
 * with its box (the story panel's and the help's words among them). */
EMSCRIPTEN_KEEPALIVE const char *web_drawn(void)
{
    static Answer answer;
    FILE *stream = answer_begin(&answer);
    if (app == NULL || !app->session_ready) {
        fputs("{}", stream);
        return answer_end(&answer);
    }
    fputs("{\"items\": [", stream);
    for (int i = 0; i < drawn_items.count; i++) {
        const ViewDrawnItem *item = &drawn_items.items[i];
        fprintf(stream,
                "%s{\"pane\": %d, \"serial\": %" PRIu64 ", \"operation\": %" PRIu64
                ", \"x1\": %.1f, \"y1\": %.1f, \"x2\": %.1f, \"y2\": %.1f}",
                i ? ",\n" : "", item->pane, item->serial, item->operation, item->at.x1, item->at.y1,
                item->at.x2, item->at.y2);
    }
    fputs("], \"texts\": [", stream);
    const ViewCanvas *canvas = &app->canvas;
    for (int i = 0; i < canvas->logged_count; i++) {
        const ViewTextLogged *text = &canvas->logged[i];
        fprintf(stream, "%s{\"x\": %d, \"y\": %d, \"w\": %d, \"h\": %d, \"text\": ", i ? ",\n" : "",
                text->box.x, text->box.y, text->box.w, text->box.h);
        report_write_json_string(stream, text->text);
        fputc('}', stream);
    }
    fputs("]}", stream);
    return answer_end(&answer);
}

/* ------------------------------------------------------------------ run table and diagram */

/* The current scenario and seed, every mode run to its end in worlds of its own (the view's
 * are left where they are): the table `idemsim run` prints. */
EMSCRIPTEN_KEEPALIVE const char *web_run_table(void)
{
    static Answer answer;
    FILE *stream = answer_begin(&answer);
    if (app == NULL || !app->session_ready)
        return answer_end(&answer);
    RunReport report = {.scenario = app->scenario,
                        .seed = app->session.seed,
                        .mode_count = app->session.pane_count};
    World *worlds[MODE_COUNT] = {NULL};
    char stop_texts[MODE_COUNT][160];
    bool built = true;
    for (uint32_t m = 0; m < report.mode_count && built; m++) {
        report.modes[m] = app->session.modes[m];
        worlds[m] = world_create(app->scenario, report.modes[m], report.seed, (TraceSink){0},
                                 (WorldLimits){0});
        built = worlds[m] != NULL;
        if (built) {
            world_run(worlds[m]);
            report.metrics[m] = world_metrics(worlds[m]);
            report.stop_reasons[m] =
                report_stop_text(world_stop(worlds[m]), stop_texts[m], sizeof stop_texts[m]);
        }
    }
    if (built)
        report_write_table(stream, &report, false);
    else
        fputs("out of memory\n", stream);
    for (uint32_t m = 0; m < MODE_COUNT; m++)
        world_destroy(worlds[m]);
    return answer_end(&answer);
}

/* The sequence diagram `idemsim run --svg` draws: the first operations of the focused mode,
 * or of the last mode (usually the keyed one) when every mode is shown. */
EMSCRIPTEN_KEEPALIVE const char *web_svg(void)
{
    static Answer answer;
    FILE *stream = answer_begin(&answer);
    if (app == NULL || !app->session_ready)
        return answer_end(&answer);
    int pane = app->frame.focus >= 0 ? app->frame.focus : (int)app->session.pane_count - 1;
    Mode mode = app->session.modes[pane];
    SvgDiagram *diagram = report_svg_create(mode, SVG_OPERATIONS, NULL);
    if (diagram != NULL) /* the spans `run --svg` draws */
        report_svg_show_windows(diagram, app->scenario);
    World *world = diagram == NULL ? NULL
                                   : world_create(app->scenario, mode, app->session.seed,
                                                  report_svg_sink(diagram), (WorldLimits){0});
    if (world != NULL) {
        world_run(world);
        report_svg_write(stream, diagram, app->scenario, app->session.seed);
    }
    world_destroy(world);
    report_svg_destroy(diagram);
    return answer_end(&answer);
}

/* The mode web_svg draws, for the file's name. */
EMSCRIPTEN_KEEPALIVE const char *web_svg_mode(void)
{
    if (app == NULL || !app->session_ready)
        return "";
    int pane = app->frame.focus >= 0 ? app->frame.focus : (int)app->session.pane_count - 1;
    return mode_name(app->session.modes[pane]);
}
