/* The sequence diagram of one pane, drawn from its diagram model: lifelines for the sampled
 * clients, the network, the services and the ledger, time flowing down to "now" at the bottom edge,
 * arrows for every message copy of the sampled clients and a density band for all other clients.
 * Drawing also finds the message under the mouse, so hit testing always matches the picture. */
#ifndef IDEMSIM_VIEW_SEQUENCE_H
#define IDEMSIM_VIEW_SEQUENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_time.h"
#include "view_canvas.h"
#include "view_layout.h"
#include "view_pane.h"
#include "view_timeline.h"

typedef struct {
    bool valid;
    float x1, y1, x2, y2;
} ViewSegment;

/* What a frame drew that a click picks (messages, activations, marks), with the pane and
 * operation, for a host that points at them from outside (the page's test clicks one); only
 * items whose middle lies inside the diagram, at most VIEW_DRAWN_ITEMS_MAX per frame. */
#define VIEW_DRAWN_ITEMS_MAX 256

typedef struct {
    int pane; /* the session pane */
    uint64_t serial;
    uint64_t operation;
    ViewSegment at; /* in the canvas's pixels; a mark's two ends are one point */
} ViewDrawnItem;

typedef struct {
    int count;
    ViewDrawnItem items[VIEW_DRAWN_ITEMS_MAX];
} ViewDrawnItems;

/* In: the mouse and the pinned serial. Out: the nearest message to the mouse (if within
 * reach) and where the pinned one was drawn. */
typedef struct {
    int mouse_x, mouse_y;
    bool mouse_active;
    float reach_px;
    uint64_t hovered_serial; /* 0: none */
    float hovered_distance;
    ViewSegment hovered;
    uint64_t pinned_serial; /* 0: none */
    ViewSegment pinned;
    ViewDrawnItems *drawn; /* NULL: not kept */
    int pane;              /* the session pane drawn, for drawn */
} ViewSequencePick;

/* Whether the client groups' names over the pane's lanes in rect are too crowded to read on
 * one row (some name would keep fewer than a few characters): then they are drawn staggered,
 * taking turns between two rows, the clients' numbers on a third. The frame asks every pane
 * and staggers all of them or none, so the columns' time axes stay level. */
bool view_sequence_crowded(ViewCanvas *canvas, const ViewLayout *layout, ViewRect rect,
                           const ViewPane *pane, const ViewTimeline *timeline, SimTimeUs clock_us);
/* Draws pane's diagram on the shared timeline as it stands at clock_us; staggered: the groups'
 * names on two rows (view_sequence_crowded). */
void view_sequence_draw(ViewCanvas *canvas, const ViewLayout *layout, ViewRect rect,
                        const ViewPane *pane, const ViewTimeline *timeline, SimTimeUs clock_us,
                        bool staggered, ViewSequencePick *pick);

#endif
