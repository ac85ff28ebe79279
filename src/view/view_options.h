/* The command line of `idemsim view` (after the word "view"). Parsing never exits: it
 * returns what the caller should do, so view_main can free what it holds. Strings point
 * into argv. */
#ifndef IDEMSIM_VIEW_OPTIONS_H
#define IDEMSIM_VIEW_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "scenario.h"

#define VIEW_OVERRIDES_MAX 64

typedef struct {
    const char *scenario_path;
    const char *overrides[VIEW_OVERRIDES_MAX];
    uint32_t override_count;
    Mode modes[MODE_COUNT];
    uint32_t mode_count;
    bool has_seed;
    uint64_t seed;
    double speed; /* simulated seconds per wall second */
    bool headless;
    const char *png_path;
    bool has_at;
    uint64_t at_ms; /* simulated time of the headless frame */
    bool has_quit_after;
    uint64_t quit_after_ms; /* wall time */
    const char *record_dir;
    int width, height;
    bool size_given; /* --width or --height: the projector preset keeps it */
    bool projector;  /* labels for the back row: larger type, a taller diagram */
    bool has_window;
    uint64_t window_from_ms, window_to_ms; /* --window: the diagrams' fixed time window */
    const char *labels_path;               /* --labels-json: the diagram texts of the last frame */
    bool has_story;
    uint64_t story_operation; /* --story: that operation's story, as a click on it shows */
    bool fullscreen;
    bool stats;
    int focus;          /* -1: every mode side by side */
    bool predict;       /* stop at the scenario's questions (view_quiz.h) */
    const char *moment; /* --moment: the frame just after a named first (view_headless.c) */
    bool has_presses;
    uint64_t presses; /* headless --predict: space presses the class made before the frame */
} ViewOptions;

typedef enum {
    VIEW_OPTIONS_RUN,  /* go on */
    VIEW_OPTIONS_HELP, /* usage printed on stdout: exit 0 */
    VIEW_OPTIONS_ERROR /* message and usage printed on stderr: exit 2 */
} ViewOptionsResult;

ViewOptionsResult view_options_parse(int argc, char **argv, ViewOptions *options);
extern const char *const view_options_usage;

#endif
