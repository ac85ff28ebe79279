/* `idemsim view`: parses the options, loads the scenario exactly as `run` does, builds one
 * pane per mode with the same seed, then hands over to the window loop or the headless
 * renderer. view_quit frees everything; no atexit, so a test can call view_main twice. */
#include "view.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"
#include "view_app.h"

#define EXIT_USAGE 2

void view_quit(ViewApp *app)
{
    if (app->canvas_ready)
        view_canvas_release(&app->canvas);
    app->canvas_ready = false;
    if (app->renderer != NULL)
        SDL_DestroyRenderer(app->renderer);
    app->renderer = NULL;
    if (app->window != NULL)
        SDL_DestroyWindow(app->window);
    app->window = NULL;
    SDL_FreeSurface(app->surface);
    app->surface = NULL;
    if (app->ttf_ready)
        TTF_Quit();
    app->ttf_ready = false;
    if (app->sdl_ready)
        SDL_Quit();
    app->sdl_ready = false;
    if (app->session_ready)
        view_session_release(&app->session);
    app->session_ready = false;
    free(app->scenario);
    app->scenario = NULL;
}

bool view_relayout(ViewApp *app)
{
    int panes = app->frame.focus >= 0 ? 1 : (int)app->session.pane_count;
    ViewLayout *layout = &app->frame.layout;
    view_layout_compute(layout, app->width, app->height, panes, app->options.projector);
    char error[1400];
    bool ok = app->canvas_ready ? view_canvas_set_unit(&app->canvas, layout->unit,
                                                       layout->label_scale, error, sizeof error)
                                : view_canvas_init(&app->canvas, app->renderer, layout->unit,
                                                   layout->label_scale, error, sizeof error);
    if (!ok) {
        fprintf(stderr, "idemsim view: %s\n", error);
        return false;
    }
    if (!app->canvas_ready) /* a host may keep the log on (the page, for its test) */
        app->canvas.log_texts = app->options.labels_path != NULL;
    app->canvas_ready = true;
    return true;
}

void view_story_refresh(ViewApp *app, int pane, uint64_t serial, uint64_t operation)
{
    if (pane < 0 || pane >= (int)app->session.pane_count) {
        app->story.valid = false;
        return;
    }
    const ViewPane *shown = app->session.panes[pane];
    if (serial != 0) {
        const DiagramItem *item = view_pane_arrow(shown, serial);
        if (item == NULL) {
            app->story.valid = false;
            return;
        }
        operation = item->operation;
    }
    if (!view_story_tell(&app->story, shown->scenario, shown->mode, shown->seed, operation,
                         view_session_clock(&app->session)))
        fprintf(stderr, "idemsim view: out of memory telling operation %" PRIu64 "'s story\n",
                operation);
    app->story.pane = pane;
}

void view_end_stories_refresh(ViewApp *app)
{
    SimTimeUs clock = view_session_clock(&app->session);
    bool clock_stopped = view_session_finished(&app->session);
    app->frame.end_stories = app->end_stories;
    for (uint32_t p = 0; p < app->session.pane_count && p < MODE_COUNT; p++) {
        const ViewPane *pane = app->session.panes[p];
        if (!view_pane_finished_at(pane, clock, clock_stopped)) {
            app->end_stories[p].valid = false;
            app->end_story_told[p] = false;
        } else if (!app->end_story_told[p]) {
            app->end_story_told[p] = true;
            view_story_tell_telling(&app->end_stories[p], pane->scenario, pane->mode, pane->seed,
                                    clock);
        }
    }
}

bool view_prepare_record_dir(const char *dir)
{
    struct stat info;
    if (stat(dir, &info) == 0 && S_ISDIR(info.st_mode))
        return true;
    if (mkdir(dir, 0777) != 0) {
        fprintf(stderr, "idemsim view: cannot create directory %s: %s\n", dir, strerror(errno));
        return false;
    }
    return true;
}

/* A FIFO, a device or a socket would block the loader forever; a --png output that is the
 * scenario itself would replace it. Both are refused before anything is read or written. */
static bool paths_usable(const ViewOptions *options)
{
    struct stat input;
    if (stat(options->scenario_path, &input) == 0 && !S_ISREG(input.st_mode) &&
        !S_ISDIR(input.st_mode)) {
        fprintf(stderr, "%s: cannot read file: not a regular file (a FIFO, device or socket)\n",
                options->scenario_path);
        return false;
    }
    /* Every file view reads or writes, checked together as run's are (issue 24: --labels-json
     * could replace the scenario or the PNG, and --record DIR took --png DIR/frame_000001.png). */
    const OutputRole files[] = {
        {"--png", options->png_path, true, false},
        {"--labels-json", options->labels_path, true, false},
        {"--record", options->record_dir, true, true},
        {"scenario", options->scenario_path, false, false},
    };
    char error[OUTPUT_PATH_MAX * 2 + 200];
    if (!output_file_check_distinct(files, sizeof files / sizeof files[0], error, sizeof error)) {
        fprintf(stderr, "idemsim view: %s\n", error);
        return false;
    }
    return true;
}

static Scenario *load_scenario(const ViewOptions *options)
{
    if (!paths_usable(options))
        return NULL;
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    if (scenario == NULL || errors == NULL) {
        fprintf(stderr, "idemsim view: out of memory\n");
        free(scenario);
        free(errors);
        return NULL;
    }
    if (!scenario_load_file(options->scenario_path, options->overrides, options->override_count,
                            scenario, errors)) {
        scenario_print_errors(stderr, options->scenario_path, errors);
        free(scenario);
        scenario = NULL;
    }
    free(errors);
    return scenario;
}

/* Everything a run needs before SDL: scenario, session, frame state. */
static int prepare(ViewApp *app)
{
    const ViewOptions *options = &app->options;
    app->scenario = load_scenario(options);
    if (app->scenario == NULL)
        return EXIT_USAGE;
    const Mode *modes = options->mode_count ? options->modes : app->scenario->modes;
    uint32_t mode_count = options->mode_count ? options->mode_count : app->scenario->mode_count;
    if (options->focus >= (int)mode_count) {
        fprintf(stderr, "idemsim view: --focus %d, but only %u modes are shown\n",
                options->focus + 1, mode_count);
        return EXIT_USAGE;
    }
    if (options->predict && app->scenario->question_count == 0) {
        fprintf(stderr,
                "%s: --predict: the scenario declares no questions (add \"questions\": "
                "docs/scenario-format.md)\n",
                options->scenario_path);
        return EXIT_USAGE;
    }
    if (options->record_dir != NULL && !view_prepare_record_dir(options->record_dir))
        return EXIT_USAGE;
    uint64_t seed = options->has_seed ? options->seed : app->scenario->seed;
    if (!view_session_init(&app->session, app->scenario, modes, mode_count, seed, options->speed)) {
        fprintf(stderr, "idemsim view: out of memory building the worlds\n");
        return EXIT_USAGE;
    }
    app->session_ready = true;
    app->width = options->width;
    app->height = options->height;
    app->frame = (ViewFrame){.canvas = &app->canvas,
                             .session = &app->session,
                             .focus = options->focus,
                             .fixed_window = options->has_window,
                             .window_from_us = options->window_from_ms * SIM_US_PER_MS,
                             .window_to_us = options->window_to_ms * SIM_US_PER_MS,
                             .pinned_pane = -1,
                             .story = &app->story,
                             .hovered_pane = -1,
                             .quiz = &app->quiz};
    view_quiz_init(&app->quiz, app->scenario->questions,
                   options->predict ? app->scenario->question_count : 0);
    return EXIT_SUCCESS;
}

/* A window needs a display. Without one (and no video driver chosen on purpose), SDL would
 * fall back to an invisible driver and run for nobody: say so at once instead. */
static bool display_available(void)
{
    const char *display = getenv("DISPLAY");
    const char *wayland = getenv("WAYLAND_DISPLAY");
    const char *driver = getenv("SDL_VIDEODRIVER");
    return (display != NULL && display[0] != '\0') || (wayland != NULL && wayland[0] != '\0') ||
           (driver != NULL && driver[0] != '\0');
}

int view_main(int argc, char **argv)
{
    ViewApp *app = calloc(1, sizeof *app);
    if (app == NULL) {
        fprintf(stderr, "idemsim view: out of memory\n");
        return EXIT_USAGE;
    }
    ViewOptionsResult parsed = view_options_parse(argc, argv, &app->options);
    int code = parsed == VIEW_OPTIONS_HELP ? EXIT_SUCCESS : EXIT_USAGE;
    if (parsed == VIEW_OPTIONS_RUN) {
        code = prepare(app);
        if (code == EXIT_SUCCESS && !app->options.headless && !display_available()) {
            fprintf(stderr, "idemsim view: no display (DISPLAY is not set): use --headless --png "
                            "FILE for a picture, or run it under xvfb-run\n");
            code = EXIT_USAGE;
        }
        if (code == EXIT_SUCCESS)
            code = app->options.headless ? view_headless_run(app) : view_window_run(app);
        if (code == EXIT_SUCCESS && app->options.labels_path != NULL && app->canvas_ready &&
            !view_labels_save(app, app->options.labels_path))
            code = EXIT_USAGE;
    }
    view_quit(app);
    free(app);
    return code;
}
