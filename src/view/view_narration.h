/* Words for what the panes show: the one-line narration of the last notable event, the
 * details of a message the mouse points at, money in minor units. SDL-free: the strings
 * are plain UTF-8 and the colour is a palette entry. */
#ifndef IDEMSIM_VIEW_NARRATION_H
#define IDEMSIM_VIEW_NARRATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "view.h"
#include "view_pane.h"

#define VIEW_DETAIL_LINES_MAX 8
#define VIEW_DETAIL_LEN_MAX 160

/* "1,234.50"; with sign, "+1,234.50" or "−1,234.50" (U+2212). */
void view_narration_money(char *buffer, size_t size, int64_t minor_units, bool sign);
/* "web[3]" for a client of the pane's scenario. */
void view_narration_client(char *buffer, size_t size, const ViewPane *pane, uint32_t group,
                           uint32_t client_in_group);
/* The sentence for the pane's narration line and the colour it is drawn in. */
ViewColor view_narration_line(const ViewPane *pane, const ViewNarration *narration, char *buffer,
                              size_t size);

/* What the scenario's operations do, in the words of the counters and the verdicts: only
 * payments are "charged"; a status update is "written", anything else (or a mix) "applied",
 * and money is named only where operations carry an amount. C23's status writes once read
 * "charged twice (0.00)". */
typedef struct {
    const char *verb; /* "charged", "written", "applied" */
    const char *noun; /* "payment", "status update", "request" */
    bool money;       /* some operation carries an amount */
} ViewEffectWords;

ViewEffectWords view_narration_effects(const ViewPane *pane);

/* The line a pane shows once its run is done (every operation settled): how its operations
 * ended, the money the doubles and losses come to. */
ViewColor view_narration_finished(const ViewPane *pane, char *buffer, size_t size);

typedef struct {
    char title[VIEW_DETAIL_LEN_MAX];
    int line_count;
    char lines[VIEW_DETAIL_LINES_MAX][VIEW_DETAIL_LEN_MAX];
    ViewColor color;
} ViewDetails;

/* What an arrow, box or mark is and what became of it: operation, attempt, copy, key, fate. */
void view_narration_details(const ViewPane *pane, const DiagramItem *arrow, ViewDetails *details);

#endif
