/* Where everything goes in a frame. One pure function of the frame size and the number of
 * panes shown, so the renderer, the mouse and the tests agree on every rectangle. Sizes
 * scale with a unit (1.0 at 1280x720, 3.0 on a 4K projector); fonts use the same unit. */
#ifndef IDEMSIM_VIEW_LAYOUT_H
#define IDEMSIM_VIEW_LAYOUT_H

#include <stdbool.h>

#include "scenario.h"
#include "view.h"

#define VIEW_COUNTERS 4     /* ok, double, lost, phantom */
#define VIEW_COUNTERS_MAX 5 /* and, where the run has them, mismatches or stale overwrites */

typedef struct {
    ViewRect pane;
    ViewRect header;
    ViewRect counter_area;
    int counter_count; /* VIEW_COUNTERS, or VIEW_COUNTERS_MAX (view_layout_set_counters) */
    ViewRect counters[VIEW_COUNTERS_MAX];
    ViewRect balances;
    ViewRect keys;
    ViewRect sequence;
    ViewRect narration;
    int key_rows; /* rows of the key store that fit */
    bool wide;    /* a single pane: panels on the left, the diagram on the right */
} ViewPaneLayout;

typedef struct {
    int width, height;
    float unit;
    bool projector;    /* the back-row preset: larger diagram type, fewer key-store rows */
    float label_scale; /* the diagram's type against the rest: 1, or larger on a projector */
    ViewRect title;
    ViewRect status;
    int pane_count;
    ViewPaneLayout panes[MODE_COUNT];
} ViewLayout;

void view_layout_compute(ViewLayout *layout, int width, int height, int pane_count, bool projector);
/* Splits every pane's counter strip into count counters (VIEW_COUNTERS or VIEW_COUNTERS_MAX):
 * a fifth appears when a run has an outcome the four do not show. */
void view_layout_set_counters(ViewLayout *layout, int count);
/* Scales a length at 1280x720 to this layout, at least 1 pixel. */
int view_layout_px(const ViewLayout *layout, float length);
bool view_layout_contains(ViewRect rect, int x, int y);
/* The one place a coordinate computed from data (a moment far outside the window, a count)
 * is bounded, before anything turns it into an int: within +-2^24 pixels, where a float is
 * still exact and sums of two coordinates still fit an int. A line to a clamped end leaves
 * the screen less than a tenth of a pixel away from where the true one does. */
float view_layout_coordinate(double pixels);

#endif
