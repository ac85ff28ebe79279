/* One frame of the view: the title bar, a column per visible pane (header, counters,
 * balances, key store, sequence diagram, narration), the status bar, and the overlays
 * (details of the message under the mouse, help, a short notice). Drawing reads the session
 * and writes only the frame's own pick results. */
#ifndef IDEMSIM_VIEW_FRAME_H
#define IDEMSIM_VIEW_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#include "view_canvas.h"
#include "view_layout.h"
#include "view_pane.h"
#include "view_quiz.h"
#include "view_sequence.h"
#include "view_session.h"
#include "view_story.h"

/* The fifth counter: an outcome the four do not show, drawn once a run has one (or a
 * question hides it), and kept until the clock goes back. */
typedef enum {
    VIEW_EXTRA_NONE,
    VIEW_EXTRA_MISMATCH,     /* a client given the answer of another request */
    VIEW_EXTRA_STALE,        /* a status write applied over a newer one */
    VIEW_EXTRA_TWICE,        /* an order two paths fulfilled twice (C33) */
    VIEW_EXTRA_LOST_UPDATES, /* a debit written over by a handler's stale write (C29) */
    VIEW_EXTRA_DOUBLE_HOLDS, /* a payment that left two holds on the card (C35) */
    VIEW_EXTRA_REFUNDED,     /* a saga's order charged, then given back (C28) */
    VIEW_EXTRA_DECLINED      /* a payment the gateway declined: not lost */
} ViewExtraCounter;

typedef struct {
    /* in */
    ViewCanvas *canvas;
    ViewLayout layout;
    const ViewSession *session;
    int focus; /* the only pane shown, or -1 for all */
    bool paused;
    bool help;
    bool interactive; /* a window: show the hints that need a keyboard */
    bool in_browser;  /* a page's canvas: no quit key, p downloads, links instead of options */
    char notice[512]; /* shown above the status bar when not empty */
    int mouse_x, mouse_y;
    bool mouse_active;
    int pinned_pane; /* -1: nothing pinned */
    uint64_t pinned_serial;
    bool fixed_window; /* the diagrams show [window_from_us, window_to_us], not the clock */
    SimTimeUs window_from_us, window_to_us;
    const ViewQuiz *quiz;         /* --predict's questions; NULL: none */
    const ViewStory *story;       /* the story of the clicked operation; NULL or invalid: none */
    const ViewStory *end_stories; /* by session pane: a finished column's telling operation,
                                     drawn in place of its diagram; NULL or invalid: none */
    ViewDrawnItems *drawn;        /* NULL, or kept: what the frame drew that a click picks */
    int covered_right; /* pixels at the right edge a host's panel lies over (the page's editor
                          on a laptop): the help, the story and the question card keep left
                          of it */
    /* out: what the mouse points at (pane -1: nothing) */
    int hovered_pane;
    uint64_t hovered_serial;
    int hidden_drawn;     /* counters and verdicts drawn as "?" for an open question */
    int card_logged_from; /* the question card's first string in the canvas log; -1: none */
    ViewExtraCounter extra_counter; /* kept from frame to frame while the clock goes forward */
    SimTimeUs extra_since_us;
} ViewFrame;

void view_frame_draw(ViewFrame *frame);
/* The width of the frame left of what covers its right edge (covered_right), where the
 * overlays go; never less than half the frame. */
int view_frame_visible_width(const ViewFrame *frame);
/* The session pane shown in layout column `column`. */
int view_frame_pane_of_column(const ViewFrame *frame, int column);

/* Panels of one pane (view_panels.c). */
typedef struct {
    ViewCanvas *canvas;
    const ViewLayout *layout;
    const ViewPaneLayout *box;
    const ViewPane *pane;
    int64_t money_scale; /* the largest amount charged in any pane, for shared bars */
    SimTimeUs now_us;    /* the session clock */
    bool clock_stopped;  /* every world has finished: the clock will not move again */
    unsigned hidden;     /* VIEW_QUIZ_HIDE_* bits: drawn as "?" while a question is open */
    ViewExtraCounter extra;
    int *hidden_drawn; /* counts each "?" drawn; may be NULL */
} ViewPanels;

void view_panels_header(const ViewPanels *panels);
void view_panels_counters(const ViewPanels *panels);
void view_panels_balances(const ViewPanels *panels);
void view_panels_keys(const ViewPanels *panels);
/* view_rates.c: a storm scenario's attempts and goodput per second over the run, in the key
 * store's box (view_rates_shown says when). */
bool view_rates_shown(const ViewPane *pane);
void view_panels_rates(const ViewPanels *panels);
void view_panels_narration(const ViewPanels *panels);

/* The open question of --predict as a card over the diagrams (view_quiz_draw.c). */
void view_quiz_draw(ViewFrame *frame);

#endif
