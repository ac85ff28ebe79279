/* The story of one operation in one mode, in words: a third renderer of the diagram model
 * (after the SVG handout and the view). One line per step, in the order they happened: each
 * click, every copy of every message with its fate, each decision of a key store, each
 * effect, each answer; then the outcome the model gave it and, for each duplicate, which
 * layer caught it or that none did. Fed typed trace records as the run goes (only the
 * operation's own), written when the run is over. */
#ifndef IDEMSIM_EXPLAIN_H
#define IDEMSIM_EXPLAIN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "scenario.h"
#include "trace.h"

typedef struct Explain Explain; /* opaque */

/* scenario: the world told (read now, for its broker's rules). NULL when out of memory. */
Explain *explain_create(const Scenario *scenario, Mode mode, uint64_t operation);
void explain_destroy(Explain *explain); /* NULL is a no-op */
TraceSink explain_sink(Explain *explain);
/* Writes the story; scenario (borrowed) says what the operation is. False on an I/O error. */
bool explain_write(FILE *stream, const Explain *explain, const Scenario *scenario);

#endif
