/* The SDL2 view of idemsim: one column per mode with live counters, balances, the key store
 * and a sequence diagram that scrolls with simulated time, all read through the same World
 * API as the reports. This header is SDL-free so the command line and the tests include it
 * without SDL flags. view_main creates and frees every SDL resource it uses. */
#ifndef IDEMSIM_VIEW_H
#define IDEMSIM_VIEW_H

#include <stdbool.h>
#include <stdint.h>

/* ------------------------------------------------------------------ entry point */

/* argv holds the arguments after the word "view" (argv[0] is the scenario path). Returns the
 * process exit code: 0 ok, 2 bad input, bad usage or an output file that could not be
 * written. Prints errors on stderr. */
int view_main(int argc, char **argv);

/* ------------------------------------------------------------------ layout */

typedef struct {
    int x, y, w, h;
} ViewRect;

/* The parts of a pane (one pane per mode, left to right in the scenario's mode order). */
typedef enum {
    VIEW_REGION_PANE,
    VIEW_REGION_HEADER,
    VIEW_REGION_COUNTER_OK,
    VIEW_REGION_COUNTER_DOUBLE,
    VIEW_REGION_COUNTER_LOST,
    VIEW_REGION_COUNTER_PHANTOM,
    VIEW_REGION_BALANCES,
    VIEW_REGION_KEY_STORE,
    VIEW_REGION_SEQUENCE,
    VIEW_REGION_NARRATION,
    VIEW_REGION_COUNT
} ViewRegion;

/* Where region of pane (0-based) lies in a width x height frame that shows pane_count panes
 * side by side, exactly as the renderer draws it. False when there is no such pane. */
bool view_layout_region(int width, int height, int pane_count, int pane, ViewRegion region,
                        ViewRect *rect);

/* ------------------------------------------------------------------ palette */

/* A small fixed palette that reads on a projector. Meaning is never carried by colour alone:
 * every coloured element also has a label or a shape (cross, check mark, "x2"). */
typedef enum {
    VIEW_COLOR_BACKGROUND,
    VIEW_COLOR_PANEL,
    VIEW_COLOR_PANEL_RAISED,
    VIEW_COLOR_GRID,
    VIEW_COLOR_TEXT,
    VIEW_COLOR_TEXT_DIM,
    VIEW_COLOR_OK,      /* green: charged once, told success; replayed answers */
    VIEW_COLOR_DOUBLE,  /* red: double charges, and the cross on a lost message */
    VIEW_COLOR_WARNING, /* amber: phantom, unknown, timeouts, retries, 409 */
    VIEW_COLOR_LOST,    /* grey: lost messages and lost payments */
    VIEW_COLOR_MESSAGE, /* blue: requests and neutral activity */
    VIEW_COLOR_RESPONSE,
    VIEW_COLOR_COUNT
} ViewColor;

/* 0xRRGGBB. Solid fills use these values exactly, so tests can look for them in a frame. */
uint32_t view_palette_rgb(ViewColor color);

#endif
