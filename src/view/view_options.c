/* Options of `idemsim view`, in the CLI's style: every mistake is a usage error (exit 2)
 * with one line saying what was wrong, then the usage. */
#include "view_options.h"

#include "scenario_library.h"
#include "view_moment.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const view_options_usage =
    "usage: idemsim view SCENARIO [options]\n"
    "\n"
    "Opens a window that shows every mode of the scenario side by side, live: the same seed,\n"
    "so each mode meets the same lost and slow messages. Counters, balances, the key store\n"
    "and a sequence diagram of the first clients show who gets charged twice and why.\n"
    "\n"
    "options:\n"
    "  --mode M            show only mode M (repeatable)\n"
    "  --seed N            override the scenario's seed\n"
    "  --set PATH=VALUE    override a scenario field, e.g. --set clients[0].count=2000\n"
    "  --speed X           simulated seconds per wall second (default 0.5; keys + and -)\n"
    "  --focus N           start with only the N-th mode shown (1-based; keys 0-3)\n"
    "  --width W --height H  window or image size (default 1280x720)\n"
    "  --fullscreen        start full screen (key f)\n"
    "  --projector         for the back row: diagram labels of 18 px and more at 1920x1080\n"
    "                      (the default size then), a taller diagram, fewer key-store rows\n"
    "  --window FROM:TO    the diagrams show this stretch of simulated time (ms) instead of\n"
    "                      following the clock; every column shares one time axis either way,\n"
    "                      and stretches where nothing happens are squeezed and marked\n"
    "  --story OP          show operation OP's story (as idemsim explain tells it, up to the\n"
    "                      clock) in the first column shown, as clicking its message does\n"
    "  --labels-json FILE  on exit, write every text of the last frame's diagrams with its\n"
    "                      box and size as JSON (to check a layout for overlaps)\n"
    "  --quit-after-ms T   close after T ms of wall time (kiosk demos, CI)\n"
    "  --record DIR        write every frame as DIR/frame_000001.png ..., 30 per second of\n"
    "                      wall time at the chosen speed (docs/view.md: ffmpeg to MP4/GIF)\n"
    "  --headless          no window: render with a software renderer\n"
    "  --png FILE          with --headless: write the frame at --at-ms as a PNG\n"
    "  --at-ms T           simulated time of that frame (default: the scenario's duration)\n"
    "  --moment NAME       instead of --at-ms: the frame just after the run's first double,\n"
    "                      crash, replay, rebalance, failover, dead-letter or stale-overwrite\n"
    "  --stats             print frame rate and frame cost on exit\n"
    "  --predict           classroom mode: stop at the scenario's questions, hide the\n"
    "                      counters that answer them; space or enter reveals, again runs on\n"
    "  --presses N         with --headless --predict: the frame after N such presses\n"
    "                      (default 0: the first question, asked, if --at-ms reaches it)\n"
    "\n"
    "keys: space pause, n step, +/- speed, r restart, s new seed, 0-3 focus, p screenshot,\n"
    "      f full screen, h help, q quit; point at a message for details, click to pin;\n"
    "      with --predict, space or enter answers the question on screen\n"
    "\n"
    "Headless frames are deterministic: same scenario, seed and --at-ms, same PNG bytes.\n";

/* The mistake, the usage line and where the rest is, as the other commands do: a screenful
 * of help would push the one line that matters out of sight. */
static ViewOptionsResult usage_error(const char *format, const char *argument)
{
    fprintf(stderr, "idemsim view: ");
    fprintf(stderr, format, argument);
    size_t first_line = strcspn(view_options_usage, "\n");
    fprintf(stderr, "\n%.*s\n(idemsim help view for every option)\n", (int)first_line,
            view_options_usage);
    return VIEW_OPTIONS_ERROR;
}

static bool parse_u64(const char *text, uint64_t *value)
{
    char *end = NULL;
    errno = 0;
    if (text[0] < '0' || text[0] > '9')
        return false;
    unsigned long long parsed = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0')
        return false;
    *value = parsed;
    return true;
}

static bool parse_size(const char *text, int low, int high, int *value)
{
    uint64_t parsed;
    if (!parse_u64(text, &parsed) || parsed < (uint64_t)low || parsed > (uint64_t)high)
        return false;
    *value = (int)parsed;
    return true;
}

static const char *const valued[] = {"--mode",        "--seed",    "--set",    "--speed",
                                     "--focus",       "--width",   "--height", "--quit-after-ms",
                                     "--record",      "--png",     "--at-ms",  "--window",
                                     "--labels-json", "--presses", "--story",  "--moment"};

static bool takes_value(const char *arg)
{
    for (size_t i = 0; i < sizeof valued / sizeof valued[0]; i++) {
        if (strcmp(arg, valued[i]) == 0)
            return true;
    }
    return false;
}

/* FROM:TO in milliseconds, FROM before TO. */
static ViewOptionsResult parse_window(const char *value, ViewOptions *options)
{
    const char *colon = strchr(value, ':');
    char from[32];
    size_t length = colon != NULL ? (size_t)(colon - value) : 0;
    if (colon == NULL || length == 0 || length >= sizeof from)
        return usage_error("--window expects FROM:TO in milliseconds, got '%s'", value);
    memcpy(from, value, length);
    from[length] = '\0';
    if (!parse_u64(from, &options->window_from_ms) ||
        !parse_u64(colon + 1, &options->window_to_ms) ||
        options->window_to_ms > (uint64_t)SCENARIO_MS_MAX)
        return usage_error("--window expects FROM:TO in milliseconds, got '%s'", value);
    if (options->window_from_ms >= options->window_to_ms)
        return usage_error("--window %s: FROM must come before TO", value);
    options->has_window = true;
    return VIEW_OPTIONS_RUN;
}

static ViewOptionsResult parse_number_option(const char *arg, const char *value,
                                             ViewOptions *options)
{
    if (strcmp(arg, "--seed") == 0) {
        if (!parse_u64(value, &options->seed))
            return usage_error("--seed expects a non-negative integer, got '%s'", value);
        options->has_seed = true;
    } else if (strcmp(arg, "--speed") == 0) {
        char *end = NULL;
        double speed = strtod(value, &end);
        if (end == value || *end != '\0' || !isfinite(speed) || speed < 1.0 / 64 || speed > 4096)
            return usage_error("--speed expects a number from 1/64 to 4096, got '%s'", value);
        options->speed = speed;
    } else if (strcmp(arg, "--focus") == 0) {
        if (!parse_size(value, 0, MODE_COUNT, &options->focus))
            return usage_error("--focus expects 0 to 3, got '%s'", value);
        options->focus -= 1;
    } else if (strcmp(arg, "--width") == 0) {
        if (!parse_size(value, 320, 7680, &options->width))
            return usage_error("--width expects 320 to 7680 pixels, got '%s'", value);
        options->size_given = true;
    } else if (strcmp(arg, "--height") == 0) {
        if (!parse_size(value, 240, 4320, &options->height))
            return usage_error("--height expects 240 to 4320 pixels, got '%s'", value);
        options->size_given = true;
    } else if (strcmp(arg, "--window") == 0) {
        return parse_window(value, options);
    } else if (strcmp(arg, "--quit-after-ms") == 0) {
        if (!parse_u64(value, &options->quit_after_ms))
            return usage_error("--quit-after-ms expects milliseconds, got '%s'", value);
        options->has_quit_after = true;
    } else if (strcmp(arg, "--presses") == 0) {
        if (!parse_u64(value, &options->presses) || options->presses > 1000)
            return usage_error("--presses expects 0 to 1000, got '%s'", value);
        options->has_presses = true;
    } else if (strcmp(arg, "--story") == 0) {
        if (!parse_u64(value, &options->story_operation))
            return usage_error("--story expects an operation id (a number), got '%s'", value);
        options->has_story = true;
    } else if (strcmp(arg, "--at-ms") == 0) {
        if (!parse_u64(value, &options->at_ms) || options->at_ms > (uint64_t)SCENARIO_MS_MAX)
            return usage_error("--at-ms expects milliseconds, got '%s'", value);
        options->has_at = true;
    }
    return VIEW_OPTIONS_RUN;
}

static ViewOptionsResult parse_option(const char *arg, const char *value, ViewOptions *options)
{
    if (strcmp(arg, "--mode") == 0) {
        Mode mode;
        if (!mode_from_name(value, &mode))
            return usage_error("unknown mode '%s' (expected at-most-once, at-least-once or "
                               "idempotent)",
                               value);
        for (uint32_t m = 0; m < options->mode_count; m++) {
            if (options->modes[m] == mode) /* as run does: a repeat is a typo, not a wish */
                return usage_error("--mode %s given twice", value);
        }
        options->modes[options->mode_count++] = mode; /* at most MODE_COUNT distinct */
    } else if (strcmp(arg, "--set") == 0) {
        if (options->override_count == VIEW_OVERRIDES_MAX)
            return usage_error("too many --set options (at most 64)%s", "");
        options->overrides[options->override_count++] = value;
    } else if (strcmp(arg, "--record") == 0) {
        options->record_dir = value;
    } else if (strcmp(arg, "--png") == 0) {
        options->png_path = value;
    } else if (strcmp(arg, "--labels-json") == 0) {
        options->labels_path = value;
    } else if (strcmp(arg, "--moment") == 0) {
        if (!view_moment_known(value))
            return usage_error("--moment expects double, crash, replay, rebalance, failover, "
                               "dead-letter or stale-overwrite, got '%s'",
                               value);
        options->moment = value;
    } else if (strcmp(arg, "--projector") == 0) {
        options->projector = true;
    } else if (strcmp(arg, "--headless") == 0) {
        options->headless = true;
    } else if (strcmp(arg, "--fullscreen") == 0) {
        options->fullscreen = true;
    } else if (strcmp(arg, "--stats") == 0) {
        options->stats = true;
    } else if (strcmp(arg, "--predict") == 0) {
        options->predict = true;
    } else if (takes_value(arg)) {
        return parse_number_option(arg, value, options);
    } else {
        return usage_error("unknown option '%s'", arg);
    }
    return VIEW_OPTIONS_RUN;
}

static ViewOptionsResult check_combination(const ViewOptions *options)
{
    if (options->scenario_path == NULL)
        return usage_error("view expects a SCENARIO file%s", "");
    if (options->png_path != NULL && !options->headless)
        return usage_error("--png needs --headless (in the window, key p saves a PNG)%s", "");
    if (options->headless && options->png_path == NULL && options->record_dir == NULL)
        return usage_error("--headless needs --png FILE or --record DIR%s", "");
    if (options->headless && options->has_quit_after)
        return usage_error("--quit-after-ms is for the window; --headless renders one frame "
                           "and ends%s",
                           "");
    if (options->moment != NULL && (!options->headless || options->has_at))
        return usage_error("--moment needs --headless, and names the time --at-ms would%s", "");
    if (options->has_presses && !(options->predict && options->headless))
        return usage_error("--presses needs --headless --predict (in the window, press space)%s",
                           "");
    return VIEW_OPTIONS_RUN;
}

ViewOptionsResult view_options_parse(int argc, char **argv, ViewOptions *options)
{
    memset(options, 0, sizeof *options);
    options->speed = 0.5;
    options->width = 1280;
    options->height = 720;
    options->focus = -1;
    const char *seen[64]; /* the options given so far (there are fewer kinds than this) */
    int seen_count = 0;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            fputs(view_options_usage, stdout);
            return VIEW_OPTIONS_HELP;
        }
        if (arg[0] != '-' || arg[1] == '\0') {
            if (options->scenario_path != NULL)
                return usage_error("view expects one SCENARIO file, got another: '%s'", arg);
            static char library_path[SCENARIO_LIBRARY_PATH_MAX]; /* "view default" */
            options->scenario_path =
                scenario_library_resolve(arg, library_path, sizeof library_path);
            continue;
        }
        /* As for the other commands: only --mode and --set repeat; a second --png or
         * --at-ms used to win silently. */
        if (strcmp(arg, "--mode") != 0 && strcmp(arg, "--set") != 0) {
            for (int k = 0; k < seen_count; k++) {
                if (strcmp(seen[k], arg) == 0)
                    return usage_error("option %s given twice", arg);
            }
            if (seen_count < (int)(sizeof seen / sizeof seen[0]))
                seen[seen_count++] = arg;
        }
        const char *value = NULL;
        if (takes_value(arg)) {
            if (i + 1 >= argc)
                return usage_error("option %s needs a value", arg);
            value = argv[++i];
        }
        ViewOptionsResult result = parse_option(arg, value, options);
        if (result != VIEW_OPTIONS_RUN)
            return result;
    }
    if (options->projector && !options->size_given) {
        options->width = 1920;
        options->height = 1080;
    }
    return check_combination(options);
}
