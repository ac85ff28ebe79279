/* Everything one run of `idemsim view` holds: the options, the loaded scenario, the session,
 * the SDL objects (a window and its renderer, or a surface and a software renderer), the
 * canvas and the interactive state. view_main creates it and view_quit frees all of it. */
#ifndef IDEMSIM_VIEW_APP_H
#define IDEMSIM_VIEW_APP_H

#include <SDL.h>
#include <stdbool.h>
#include <stdint.h>

#include "scenario.h"
#include "view_canvas.h"
#include "view_frame.h"
#include "view_options.h"
#include "view_quiz.h"
#include "view_session.h"

typedef struct {
    ViewOptions options;
    Scenario *scenario;
    ViewSession session;
    bool session_ready;
    bool sdl_ready;
    bool ttf_ready;
    SDL_Window *window;
    SDL_Renderer *renderer;
    SDL_Surface *surface; /* headless target */
    ViewCanvas canvas;
    bool canvas_ready;
    ViewFrame frame;
    ViewQuiz quiz;                     /* --predict; OVER from the start without it */
    ViewStory story;                   /* a clicked message's operation, or --story's */
    double story_told_s;               /* wall time it was last told (it follows the clock) */
    ViewStory end_stories[MODE_COUNT]; /* by session pane: its finished run's telling story */
    bool end_story_told[MODE_COUNT];   /* looked for since the pane finished (found or not) */
    int width, height;                 /* renderer output, in pixels */
    uint64_t record_index;             /* frames written by --record */
    double notice_until;               /* wall time the notice disappears */
} ViewApp;

/* Frees every SDL resource and everything else the app holds; safe on a partial app. */
void view_quit(ViewApp *app);
/* Lays the frame out for the current size and focus, resizing the fonts with it; the first
 * time, opens the canvas (and its fonts) on app->renderer. */
bool view_relayout(ViewApp *app);
/* Makes sure --record's directory exists. */
bool view_prepare_record_dir(const char *dir);

/* Writes the renderer's current picture, whole or not at all (view_png.c). */
bool view_png_save_renderer(SDL_Renderer *renderer, int width, int height, const char *path);
bool view_png_save_surface(SDL_Surface *surface, const char *path);

/* --labels-json: the last frame's diagram texts, whole or not at all (view_labels.c). */
bool view_labels_save(const ViewApp *app, const char *path);

/* Tells (again) the story of the operation of `serial` in session pane `pane`, or of
 * operation `operation` when serial is 0, as of the session clock. */
void view_story_refresh(ViewApp *app, int pane, uint64_t serial, uint64_t operation);

/* Tells the story of each finished column's most telling operation once it has finished
 * (view_story_tell_telling), forgets it when the column is no longer finished (a restart);
 * the frame draws it in place of the diagram. Call before each frame is drawn. */
void view_end_stories_refresh(ViewApp *app);

int view_headless_run(ViewApp *app); /* view_headless.c */
int view_window_run(ViewApp *app);   /* view_window.c: the blocking loop of the pieces below */

/* The window one frame at a time, for a host whose own loop must get control back every
 * frame (a browser tab calls view_window_frame from its animation frames). */
typedef struct ViewWindowLoop ViewWindowLoop; /* opaque */
typedef enum {
    VIEW_WINDOW_RUNNING,
    VIEW_WINDOW_CLOSED, /* q, Esc, the window closed or --quit-after-ms */
    VIEW_WINDOW_FAILED  /* a --record frame could not be written */
} ViewWindowStatus;
/* Opens the window, the renderer and the fonts; NULL (after saying why) on failure. */
ViewWindowLoop *view_window_open(ViewApp *app);
/* Input, simulation and drawing of one frame. Never sleeps. */
ViewWindowStatus view_window_frame(ViewApp *app, ViewWindowLoop *loop);
/* Prints --stats and frees loop (NULL is a no-op); view_quit frees the rest. */
void view_window_close(ViewApp *app, ViewWindowLoop *loop);

#endif
