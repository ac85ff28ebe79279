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
        if (kept > 0) {
            if (story->line_count == VIEW_STORY_LINES_MAX) {
                story->truncated = true;
                return;
            }
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
    Explain *explain = explain_create(mode, operation);
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
