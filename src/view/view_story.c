/* A click's story: explain's renderer on a world of its own, run to the clicked moment, its
 * text cut into lines for the view's panel. The words are explain's, so the view and the
 * command line never tell an operation's story two ways. */
#include "view_story.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "world.h"

static void keep_lines(ViewStory *story, const char *text)
{
    for (const char *line = text; *line != '\0';) {
        size_t length = strcspn(line, "\n");
        const char *words = line;
        while (*words == ' ' && words < line + length)
            words++;
        size_t kept = length - (size_t)(words - line);
        /* the last two slots are kept for the verdict (outcome, caught), whatever the steps */
        bool verdict = strncmp(words, "outcome:", 8) == 0 || strncmp(words, "caught:", 7) == 0;
        int room = verdict ? VIEW_STORY_LINES_MAX : VIEW_STORY_LINES_MAX - 2;
        if (kept > 0 && story->line_count >= room) {
            story->truncated = true;
        } else if (kept > 0) {
            if (kept >= VIEW_STORY_LINE_MAX)
                kept = VIEW_STORY_LINE_MAX - 1;
            memcpy(story->lines[story->line_count], words, kept);
            story->lines[story->line_count++][kept] = '\0';
        }
        line += length + (line[length] == '\n');
    }
}

bool view_story_tell(ViewStory *story, const Scenario *scenario, Mode mode, uint64_t seed,
                     uint64_t operation, SimTimeUs until_us)
{
    memset(story, 0, sizeof *story);
    Explain *explain = explain_create(scenario, mode, operation);
    if (explain == NULL)
        return false;
    World *world = world_create(scenario, mode, seed, explain_sink(explain), (WorldLimits){0});
    char *text = NULL;
    size_t size = 0;
    FILE *stream = world != NULL ? open_memstream(&text, &size) : NULL;
    if (stream != NULL) {
        world_run_until(world, until_us);
        explain_write(stream, explain, scenario);
        fclose(stream);
    }
    world_destroy(world);
    explain_destroy(explain);
    if (text == NULL)
        return false;
    keep_lines(story, text);
    free(text);
    story->valid = true;
    story->mode = mode;
    story->operation = operation;
    story->as_of_us = until_us;
    return true;
}

/* ------------------------------------------------------------------ the telling one */

/* What a run showed first, from its trace: each outcome's first operation (the model's
 * verdict in its "settled" record), the first stale overwrite, the first second hold on a
 * card, the first duplicate caught. */
typedef struct {
    bool settled[OUTCOME_COUNT];
    uint64_t first[OUTCOME_COUNT];
    bool stale, written_over, caught, two_holds;
    uint64_t first_stale, first_written_over, first_caught, first_two_holds;
} Firsts;

static void watch_firsts(void *context, const TraceRecord *record)
{
    Firsts *firsts = context;
    if (record->no_operation)
        return;
    TraceEvent event = record->event;
    if (event == TRACE_SETTLED && record->detail < OUTCOME_COUNT &&
        !firsts->settled[record->detail]) {
        firsts->settled[record->detail] = true;
        firsts->first[record->detail] = record->operation;
    } else if (event == TRACE_STALE_OVERWRITE && !firsts->stale) {
        firsts->stale = true;
        firsts->first_stale = record->operation;
    } else if (event == TRACE_LOST_UPDATE && !firsts->written_over) {
        firsts->written_over = true;
        firsts->first_written_over = record->operation;
    } else if (event == TRACE_AUTHORISED && record->value >= 2 && !firsts->two_holds) {
        firsts->two_holds = true; /* value: the payment's holds so far */
        firsts->first_two_holds = record->operation;
    } else if ((event == TRACE_REPLAY || event == TRACE_IN_PROGRESS ||
                event == TRACE_REJECT_OTHER_BODY || event == TRACE_DEDUPLICATED) &&
               !firsts->caught) {
        firsts->caught = true;
        firsts->first_caught = record->operation;
    }
}

bool view_story_tell_telling(ViewStory *story, const Scenario *scenario, Mode mode, uint64_t seed,
                             SimTimeUs until_us)
{
    memset(story, 0, sizeof *story);
    Firsts firsts = {0};
    World *world =
        world_create(scenario, mode, seed, (TraceSink){.write = watch_firsts, .context = &firsts},
                     (WorldLimits){0});
    if (world == NULL)
        return false;
    world_run_until(world, until_us);
    world_destroy(world);
    static const struct {
        int outcome; /* an Outcome; -1: a stale overwrite, -2: a duplicate caught, -3: a
                        debit's write over another (C29's lesson), -4: a second hold on a
                        card (C35's: told after the outcomes, which charge or lose money, and
                        before a caught duplicate, which the second hold went past) */
        const char *headline;
    } order[] = {
        {-1, "the first status write overwritten by a stale one"}, /* C23's lesson */
        {-3, "the first debit written over another (a lost update)"},
        {OUTCOME_DOUBLE, "the first operation applied twice"},
        {OUTCOME_LOST, "the first operation never applied"},
        {OUTCOME_PHANTOM, "the first applied while its client was not told"},
        {OUTCOME_MISMATCH, "the first given another request's answer"},
        {-4, "the first payment that left two holds on the card"},
        {-2, "the first duplicate caught before it ran again"},
    };
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        int outcome = order[i].outcome;
        bool seen = outcome == -1   ? firsts.stale
                    : outcome == -2 ? firsts.caught
                    : outcome == -3 ? firsts.written_over
                    : outcome == -4 ? firsts.two_holds
                                    : firsts.settled[outcome];
        if (!seen)
            continue;
        uint64_t operation = outcome == -1   ? firsts.first_stale
                             : outcome == -2 ? firsts.first_caught
                             : outcome == -3 ? firsts.first_written_over
                             : outcome == -4 ? firsts.first_two_holds
                                             : firsts.first[outcome];
        if (!view_story_tell(story, scenario, mode, seed, operation, until_us))
            return false;
        snprintf(story->headline, sizeof story->headline, "%s", order[i].headline);
        snprintf(story->anchor, sizeof story->anchor, "%s",
                 outcome == -1   ? "stale overwrite"
                 : outcome == -3 ? "lost update"
                 : outcome == -4 ? "hold #2"
                                 : "");
        return true;
    }
    return false;
}
