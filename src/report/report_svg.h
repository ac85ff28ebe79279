/* The sequence diagram of a run: the first operations of one mode drawn as a Lamport diagram
 * (one lane per node, an arrow per message, a cross for a lost one, the key store's
 * decisions at the server and the charges at the ledger), written as a standalone SVG for a
 * browser or a handout. An SvgDiagram collects trace records while the run goes on (it
 * copies what it keeps, and keeps a bounded number), so the picture shows what the model
 * reported, nothing inferred from its internals. Output is deterministic: same run, same bytes. */
#ifndef IDEMSIM_REPORT_SVG_H
#define IDEMSIM_REPORT_SVG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "scenario.h"
#include "trace.h"

#define REPORT_SVG_OPERATIONS_MAX 20

typedef struct SvgDiagram SvgDiagram; /* opaque */

/* Keeps the records of mode's first operations_max operations (1..REPORT_SVG_OPERATIONS_MAX),
 * in the order they start, plus the crashes and restarts around them. NULL when out of memory. */
SvgDiagram *report_svg_create(Mode mode, uint32_t operations_max);
void report_svg_destroy(SvgDiagram *diagram); /* NULL is a no-op */

/* The sink to pass to world_create (or to tee with another); records of other modes are
 * ignored, so one sink may serve every mode of a run. */
TraceSink report_svg_sink(SvgDiagram *diagram);

/* Writes the diagram; scenario (borrowed) names the lanes' operations and amounts. Returns
 * false on an I/O error. */
bool report_svg_write(FILE *stream, const SvgDiagram *diagram, const Scenario *scenario,
                      uint64_t seed);

#endif
