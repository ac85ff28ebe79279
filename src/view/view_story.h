/* The story of one operation in one column, as `idemsim explain` tells it, up to a moment:
 * what a click on a message opens in the view. The pane's world cannot be rewound, so the
 * story runs a world of its own (same scenario, mode and seed: the same faults) to that
 * moment with the explain renderer listening. SDL-free. */
#ifndef IDEMSIM_VIEW_STORY_H
#define IDEMSIM_VIEW_STORY_H

#include <stdbool.h>
#include <stdint.h>

#include "scenario.h"
#include "sim_time.h"

#define VIEW_STORY_LINES_MAX 24
#define VIEW_STORY_LINE_MAX 200

typedef struct {
    bool valid;
    int pane; /* the session pane it belongs to */
    Mode mode;
    uint64_t operation;
    SimTimeUs as_of_us;
    char headline[VIEW_STORY_LINE_MAX]; /* why this operation ("the first double"); "" when
                                           clicked */
    char anchor[32]; /* words of the step that made it telling ("stale overwrite"); "" */
    int line_count;
    bool truncated; /* more lines than VIEW_STORY_LINES_MAX: the last ones are left out */
    char lines[VIEW_STORY_LINES_MAX][VIEW_STORY_LINE_MAX]; /* explain's lines, unindented */
} ViewStory;

/* Tells operation's story in mode up to until_us; false (story invalid) when out of memory. */
bool view_story_tell(ViewStory *story, const Scenario *scenario, Mode mode, uint64_t seed,
                     uint64_t operation, SimTimeUs until_us);

/* The story of the run's most telling operation in mode, to until_us (an end frame's, where
 * the diagram has scrolled past the cause): the first status write a stale one overwrote
 * (C23's lesson), else the first operation applied twice, else the first never applied, else the
 * first applied while its client was not told, else the first given another's answer, else the
 * first whose duplicate a key store or the broker caught. False (story invalid) when the
 * run has none of these or memory ran out. */
bool view_story_tell_telling(ViewStory *story, const Scenario *scenario, Mode mode, uint64_t seed,
                             SimTimeUs until_us);

#endif
