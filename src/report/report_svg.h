/* The sequence diagram of a run: the first operations of one mode drawn as a Lamport diagram
 * (one lane per node, an arrow per message, a cross for a lost one, the key store's
 * decisions at the server and the charges at the ledger), written as a standalone SVG for a
 * browser or a handout. An SvgDiagram collects trace records while the run goes on (it
 * copies what it keeps, and keeps a bounded number), so the picture shows what the model
 * reported, nothing inferred from its internals. Output is deterministic: same run, same bytes.
 * An SvgSearch finds, in an earlier run of the same (deterministic) world, which operations
 * ended with a given outcome, so the diagram can draw those instead of the first ones. Both
 * take an operation's outcome from the model's own "settled" record. */
#ifndef IDEMSIM_REPORT_SVG_H
#define IDEMSIM_REPORT_SVG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "metrics.h"
#include "scenario.h"
#include "trace.h"

#define REPORT_SVG_OPERATIONS_MAX 20

typedef struct SvgDiagram SvgDiagram; /* opaque */
typedef struct SvgSearch SvgSearch;   /* opaque */

/* The operations that ended with one outcome, the first ones to end so. */
typedef struct {
    Outcome outcome;
    uint32_t count;                                 /* 0: no operation ended so */
    uint64_t operations[REPORT_SVG_OPERATIONS_MAX]; /* in the order they settled */
} SvgSelection;

/* ------------------------------------------------------------------ the diagram */

/* Keeps the records of mode's first operations_max operations (1..REPORT_SVG_OPERATIONS_MAX),
 * in the order they start, plus the crashes and restarts around them. With a selection
 * (copied; NULL for none), only the operations it lists are kept, and operations_max is the
 * number that was asked for. NULL when out of memory. */
SvgDiagram *report_svg_create(Mode mode, uint32_t operations_max, const SvgSelection *selection);
void report_svg_destroy(SvgDiagram *diagram); /* NULL is a no-op */

/* Draws the key store's and the broker's windows as spans (a key's reservation and TTL, the
 * ack timer, the dedup window), sized from scenario, ends the consumers' jobs by its broker's
 * rules, and draws a key store's own crash only with operations that meet the store. Call
 * before feeding records; scenario is borrowed until the last record is fed. */
void report_svg_show_windows(SvgDiagram *diagram, const Scenario *scenario);

/* The sink to pass to world_create (or to tee with another); records of other modes are
 * ignored, so one sink may serve every mode of a run. */
TraceSink report_svg_sink(SvgDiagram *diagram);

/* How the page is laid out: the portrait handout (time flows down, lanes side by side) or a
 * landscape slide (time flows right, lanes as rows, padded to 16:9). Same words, colours and
 * legend in both. */
typedef enum { REPORT_SVG_PORTRAIT, REPORT_SVG_LANDSCAPE, REPORT_SVG_LAYOUT_COUNT } SvgLayout;

/* "portrait", "landscape"; false for any other name. */
bool report_svg_layout_from_name(const char *name, SvgLayout *layout);

/* Writes the diagram as the portrait handout; scenario (borrowed) names the lanes' operations
 * and amounts. Returns false on an I/O error. */
bool report_svg_write(FILE *stream, const SvgDiagram *diagram, const Scenario *scenario,
                      uint64_t seed);
/* The same in the layout asked for. */
bool report_svg_write_layout(FILE *stream, const SvgDiagram *diagram, const Scenario *scenario,
                             uint64_t seed, SvgLayout layout);

/* A word of the picture as the writer placed it: a badge's rectangle, or a text's extent
 * as the writer reckons it when it looks for a free place (DejaVu Sans' advances at the
 * text's size); or the ring that stands for an arrow's label left out where no place was
 * free. Words on one surface share its coordinates: the portrait page is one surface; the
 * landscape slides have the strip of rows (surface 0), the pages' frame (1: the title and
 * the lanes' heads), the summary page (2) and each page's number (3 and on). */
typedef struct {
    double x, y, width, height; /* top-left corner and size, in the surface's units */
    uint32_t surface;
    bool ring;     /* a left-out label's ring; text is the label */
    char text[48]; /* the word's first bytes, to say which it is */
} SvgWordBox;

/* Writes as report_svg_write_layout does, and hands back the box of every word written, in
 * the order written, in *words (malloc'd: free it; NULL when out of memory) and their count
 * in *word_count: what a test needs to check that no word covers another. */
bool report_svg_write_words(FILE *stream, const SvgDiagram *diagram, const Scenario *scenario,
                            uint64_t seed, SvgLayout layout, SvgWordBox **words,
                            uint32_t *word_count);

/* ------------------------------------------------------------------ finding operations */

/* Watches a run for the first operations_max (1..REPORT_SVG_OPERATIONS_MAX) operations of
 * mode to end with outcome, in the order the model settles them (its "settled" records). A
 * few bytes, whatever the run's size. NULL when out of memory. */
SvgSearch *report_svg_search_create(Mode mode, Outcome outcome, uint32_t operations_max);
void report_svg_search_destroy(SvgSearch *search); /* NULL is a no-op */
TraceSink report_svg_search_sink(SvgSearch *search);
/* True once operations_max were found: the run may stop. */
bool report_svg_search_done(const SvgSearch *search);
/* What was found so far. Valid until the search is destroyed. */
const SvgSelection *report_svg_search_result(const SvgSearch *search);

#endif
