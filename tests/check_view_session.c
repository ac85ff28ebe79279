/* The viewing session's clock (src/view/view_session.c, SDL-free): every column shows one
 * clock, and a quiet stretch is passed over without changing what the worlds do. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "view_session.h"
#include "view_story.h"

#define MS 1000u

static Scenario *load(const char *path)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    ck_assert(scenario_load_file(path, NULL, 0, scenario, errors));
    free(errors);
    return scenario;
}

static void open_session(ViewSession *session, const Scenario *scenario)
{
    ck_assert(view_session_init(session, scenario, scenario->modes, scenario->mode_count,
                                scenario->seed, 0.5));
}

/* C1: the requests and their lost answers by 0.1 s, then nothing until the timeouts at 1 s. */
START_TEST(test_a_quiet_stretch_is_skipped_to_just_before_the_next_event)
{
    Scenario *scenario = load("scenarios/01_lost_answer.json");
    ViewSession session;
    open_session(&session, scenario);
    view_session_advance(&session, 300 * MS, 0);
    SimTimeUs skipped = view_session_skip_quiet(&session, 200 * MS, 50 * MS, SIM_TIME_NEVER);
    ck_assert_uint_gt(skipped, 0);
    SimTimeUs next = SIM_TIME_NEVER;
    for (uint32_t p = 0; p < session.pane_count; p++) {
        SimTimeUs due = world_next_event_us(session.panes[p]->world);
        next = due < next ? due : next;
    }
    ck_assert_uint_eq(view_session_clock(&session), next - 50 * MS);
    /* a gap shorter than asked for is left alone */
    ck_assert_uint_eq(view_session_skip_quiet(&session, 200 * MS, 50 * MS, SIM_TIME_NEVER), 0);
    view_session_release(&session);
    free(scenario);
}
END_TEST

/* A question due in the quiet stretch stops the skip short of it. */
START_TEST(test_a_skip_stops_short_of_a_question)
{
    Scenario *scenario = load("scenarios/01_lost_answer.json");
    ViewSession session;
    open_session(&session, scenario);
    view_session_advance(&session, 300 * MS, 0);
    ck_assert_uint_gt(view_session_skip_quiet(&session, 200 * MS, 50 * MS, 700 * MS), 0);
    ck_assert_uint_eq(view_session_clock(&session), 650 * MS);
    view_session_release(&session);
    free(scenario);
}
END_TEST

/* Skipping moves the clock only over time in which no event was due: the run that skips and
 * the run that does not end with the same counts. */
START_TEST(test_skipping_changes_nothing_the_worlds_do)
{
    Scenario *scenario = load("scenarios/02_offline_ttl_too_short.json");
    ViewSession skipping, plain;
    open_session(&skipping, scenario);
    open_session(&plain, scenario);
    uint64_t skips = 0;
    for (SimTimeUs t = 0; t <= 400000 * MS; t += 100 * MS) {
        if (view_session_clock(&skipping) < t)
            view_session_advance(&skipping, t, 0);
        skips += view_session_skip_quiet(&skipping, 1000 * MS, 100 * MS, SIM_TIME_NEVER) > 0;
    }
    view_session_advance(&skipping, 400000 * MS, 0);
    view_session_advance(&plain, 400000 * MS, 0);
    ck_assert_uint_gt(skips, 0);
    for (uint32_t p = 0; p < plain.pane_count; p++) {
        const ViewTally *a = &skipping.panes[p]->tally, *b = &plain.panes[p]->tally;
        ck_assert_uint_eq(a->operations, b->operations);
        for (int o = 0; o < OUTCOME_COUNT; o++)
            ck_assert_uint_eq(a->outcomes[o], b->outcomes[o]);
        ck_assert_int_eq(a->double_amount, b->double_amount);
        ck_assert_uint_eq(skipping.panes[p]->records, plain.panes[p]->records);
    }
    view_session_release(&skipping);
    view_session_release(&plain);
    free(scenario);
}
END_TEST

/* A column whose world finished early shows the session's clock, not its last event. */
START_TEST(test_every_column_shows_one_clock)
{
    Scenario *scenario = load("scenarios/01_lost_answer.json");
    ViewSession session;
    open_session(&session, scenario);
    view_session_advance(&session, 4000 * MS, 0);
    ck_assert_uint_eq(view_session_clock(&session), 4000 * MS);
    ck_assert(!view_session_draining(&session));
    view_session_advance(&session, (SimTimeUs)scenario->duration_ms * MS + 1, 0);
    ck_assert(view_session_draining(&session) || view_session_finished(&session));
    view_session_release(&session);
    free(scenario);
}
END_TEST

static bool story_says(const ViewStory *story, const char *words)
{
    for (int i = 0; i < story->line_count; i++) {
        if (strstr(story->lines[i], words) != NULL)
            return true;
    }
    return false;
}

/* A click's story is explain's, told up to the clock: C1's payment 2 in at-least-once has
 * timed out at 1.1 s but not yet been retried; by 10 s it is a double nothing caught. */
START_TEST(test_a_story_is_told_up_to_the_clock)
{
    Scenario *scenario = load("scenarios/01_lost_answer.json");
    ViewStory story;
    ck_assert(view_story_tell(&story, scenario, MODE_AT_LEAST_ONCE, scenario->seed, 2, 1100 * MS));
    ck_assert(story.valid);
    ck_assert(story_says(&story, "timeout"));
    ck_assert(!story_says(&story, "retry"));
    ck_assert(story_says(&story, "outcome: unsettled"));
    ck_assert(view_story_tell(&story, scenario, MODE_AT_LEAST_ONCE, scenario->seed, 2, 10000 * MS));
    ck_assert(story_says(&story, "retry (attempt 2)"));
    ck_assert(story_says(&story, "outcome: double"));
    ck_assert(story_says(&story, "NOT caught: 1 extra effect"));
    ck_assert(view_story_tell(&story, scenario, MODE_IDEMPOTENT, scenario->seed, 2, 10000 * MS));
    ck_assert(story_says(&story, "outcome: ok"));
    free(scenario);
}
END_TEST

static Suite *session_suite(void)
{
    Suite *suite = suite_create("view_session");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_a_quiet_stretch_is_skipped_to_just_before_the_next_event);
    tcase_add_test(tc, test_a_skip_stops_short_of_a_question);
    tcase_add_test(tc, test_skipping_changes_nothing_the_worlds_do);
    tcase_add_test(tc, test_every_column_shows_one_clock);
    tcase_add_test(tc, test_a_story_is_told_up_to_the_clock);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    if (chdir(IDEMSIM_SOURCE_DIR) != 0)
        return EXIT_FAILURE;
    SRunner *runner = srunner_create(session_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
