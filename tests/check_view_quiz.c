/* Tests of predict-then-reveal (view_quiz.c): the state machine on hand-made questions, what
 * each metric hides, and, for every curriculum scenario, that its questions come before
 * their answers: the view's own session is run to each question's time and then to the end,
 * and some revealed metric must still change after the question is asked. SDL-free: the
 * quiz and the session are driven without a display. */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenario.h"
#include "view_quiz.h"
#include "view_session.h"

static Question make_question(double at_ms, const char *first_metric, const char *second_metric)
{
    Question question = {.at_ms = at_ms};
    snprintf(question.ask, sizeof question.ask, "What happens at %g ms?", at_ms);
    const char *metrics[] = {first_metric, second_metric};
    for (int m = 0; m < 2; m++) {
        for (unsigned i = 0; metrics[m] != NULL && i < scenario_metric_count; i++) {
            if (strcmp(scenario_metric_names[i], metrics[m]) == 0)
                question.reveal[question.reveal_count++] = (uint16_t)i;
        }
    }
    ck_assert_uint_eq(question.reveal_count, (second_metric != NULL) + 1);
    return question;
}

/* ------------------------------------------------------------------ the state machine */

START_TEST(test_quiz_without_questions_never_holds_the_clock_or_takes_a_key)
{
    ViewQuiz quiz;
    view_quiz_init(&quiz, NULL, 0);
    ck_assert_int_eq(quiz.phase, VIEW_QUIZ_OVER);
    ck_assert_uint_eq(view_quiz_clock_limit(&quiz, 123456), 123456);
    ck_assert(!view_quiz_on_clock(&quiz, 999999, true));
    ck_assert(!view_quiz_holds_clock(&quiz));
    ck_assert_int_eq(view_quiz_press(&quiz), VIEW_QUIZ_PRESS_UNUSED);
    ck_assert_ptr_null(view_quiz_shown(&quiz));
    ck_assert_uint_eq(view_quiz_hidden(&quiz), 0);
    /* A host that never initialises its quiz (the browser page zeroes its app) runs free. */
    ViewQuiz zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    ck_assert_int_eq(zeroed.phase, VIEW_QUIZ_OVER);
    ck_assert_uint_eq(view_quiz_clock_limit(&zeroed, 42), 42);
    ck_assert_int_eq(view_quiz_press(&zeroed), VIEW_QUIZ_PRESS_UNUSED);
}
END_TEST

START_TEST(test_quiz_asks_reveals_then_runs_on_to_the_next_question)
{
    Question questions[] = {make_question(1400, "double", "phantom"),
                            make_question(5000, "lost", NULL)};
    ViewQuiz quiz;
    view_quiz_init(&quiz, questions, 2);
    ck_assert_int_eq(quiz.phase, VIEW_QUIZ_WAITING);
    /* The clock runs up to the question and not one microsecond past it. */
    ck_assert_uint_eq(view_quiz_clock_limit(&quiz, 1000000), 1000000);
    ck_assert_uint_eq(view_quiz_clock_limit(&quiz, 9000000), 1400000);
    ck_assert(!view_quiz_on_clock(&quiz, 1399999, false));
    ck_assert_uint_eq(view_quiz_hidden(&quiz), 0); /* nothing hidden before it is asked */
    ck_assert(view_quiz_on_clock(&quiz, 1400000, false));
    ck_assert_int_eq(quiz.phase, VIEW_QUIZ_ASKING);
    ck_assert(view_quiz_holds_clock(&quiz));
    ck_assert_ptr_eq(view_quiz_shown(&quiz), &questions[0]);
    ck_assert_uint_eq(view_quiz_hidden(&quiz),
                      VIEW_QUIZ_HIDE_DOUBLE | VIEW_QUIZ_HIDE_PHANTOM | VIEW_QUIZ_HIDE_BALANCES);
    ck_assert(!view_quiz_on_clock(&quiz, 1400000, false)); /* asked once */
    /* First key: the numbers of this moment, the clock still held. */
    ck_assert_int_eq(view_quiz_press(&quiz), VIEW_QUIZ_PRESS_REVEAL);
    ck_assert_int_eq(quiz.phase, VIEW_QUIZ_REVEALED);
    ck_assert(view_quiz_holds_clock(&quiz));
    ck_assert_ptr_eq(view_quiz_shown(&quiz), &questions[0]);
    ck_assert_uint_eq(view_quiz_hidden(&quiz), 0);
    /* Second key: run on, to the next question. */
    ck_assert_int_eq(view_quiz_press(&quiz), VIEW_QUIZ_PRESS_RUN_ON);
    ck_assert_int_eq(quiz.phase, VIEW_QUIZ_WAITING);
    ck_assert(!view_quiz_holds_clock(&quiz));
    ck_assert_ptr_null(view_quiz_shown(&quiz));
    ck_assert_int_eq(view_quiz_press(&quiz), VIEW_QUIZ_PRESS_UNUSED); /* space pauses again */
    ck_assert_uint_eq(view_quiz_clock_limit(&quiz, 9000000), 5000000);
    ck_assert(view_quiz_on_clock(&quiz, 5000000, false));
    ck_assert_uint_eq(view_quiz_hidden(&quiz), VIEW_QUIZ_HIDE_LOST | VIEW_QUIZ_HIDE_BALANCES);
    ck_assert_int_eq(view_quiz_press(&quiz), VIEW_QUIZ_PRESS_REVEAL);
    ck_assert_int_eq(view_quiz_press(&quiz), VIEW_QUIZ_PRESS_RUN_ON);
    /* After the last one the view runs as without --predict. */
    ck_assert_int_eq(quiz.phase, VIEW_QUIZ_OVER);
    ck_assert_uint_eq(view_quiz_clock_limit(&quiz, 9000000), 9000000);
    ck_assert(!view_quiz_on_clock(&quiz, 9000000, true));
}
END_TEST

START_TEST(test_quiz_asks_at_once_when_the_run_finished_before_the_question)
{
    Question questions[] = {make_question(50000, "double", NULL)};
    ViewQuiz quiz;
    view_quiz_init(&quiz, questions, 1);
    ck_assert(!view_quiz_on_clock(&quiz, 20000000, false));
    ck_assert(view_quiz_on_clock(&quiz, 20000000, true)); /* nothing left to run: ask now */
    ck_assert_int_eq(quiz.phase, VIEW_QUIZ_ASKING);
}
END_TEST

START_TEST(test_quiz_restart_asks_again_from_the_first_question)
{
    Question questions[] = {make_question(0, "ok", NULL), make_question(10, "lost", NULL)};
    ViewQuiz quiz;
    view_quiz_init(&quiz, questions, 2);
    ck_assert(view_quiz_on_clock(&quiz, 0, false)); /* a question at 0 is asked at once */
    view_quiz_press(&quiz);
    view_quiz_press(&quiz);
    ck_assert_uint_eq(quiz.current, 1);
    view_quiz_restart(&quiz);
    ck_assert_uint_eq(quiz.current, 0);
    ck_assert_int_eq(quiz.phase, VIEW_QUIZ_WAITING);
    ck_assert(view_quiz_on_clock(&quiz, 0, false));
    ck_assert_ptr_eq(view_quiz_shown(&quiz), &questions[0]);
}
END_TEST

START_TEST(test_quiz_times_round_to_the_nearest_microsecond)
{
    Question questions[] = {make_question(1.0004, "ok", NULL), make_question(1.0006, "ok", NULL)};
    ViewQuiz quiz;
    view_quiz_init(&quiz, questions, 2);
    ck_assert_uint_eq(view_quiz_at_us(&quiz, 0), 1000);
    ck_assert_uint_eq(view_quiz_at_us(&quiz, 1), 1001);
}
END_TEST

START_TEST(test_quiz_hides_what_each_metric_shows_and_nothing_for_the_others)
{
    ck_assert_uint_eq(view_quiz_hide_bits_of_metric("ok"), VIEW_QUIZ_HIDE_OK);
    ck_assert_uint_eq(view_quiz_hide_bits_of_metric("double"),
                      VIEW_QUIZ_HIDE_DOUBLE | VIEW_QUIZ_HIDE_BALANCES);
    ck_assert_uint_eq(view_quiz_hide_bits_of_metric("double_amount"),
                      VIEW_QUIZ_HIDE_DOUBLE | VIEW_QUIZ_HIDE_BALANCES);
    ck_assert_uint_eq(view_quiz_hide_bits_of_metric("lost_amount"),
                      VIEW_QUIZ_HIDE_LOST | VIEW_QUIZ_HIDE_BALANCES);
    ck_assert_uint_eq(view_quiz_hide_bits_of_metric("phantom"), VIEW_QUIZ_HIDE_PHANTOM);
    ck_assert_uint_eq(view_quiz_hide_bits_of_metric("balance_error"), VIEW_QUIZ_HIDE_BALANCES);
    ck_assert_uint_eq(view_quiz_hide_bits_of_metric("key_store_peak"), VIEW_QUIZ_HIDE_KEY_STORE);
    ck_assert_uint_eq(view_quiz_hide_bits_of_metric("409"), 0);
    ck_assert_uint_eq(view_quiz_hide_bits_of_metric("replayed"), 0);
    /* Every name the table knows is a report metric: no second list of names. */
    const char *hiding[] = {"ok",          "double",  "double_amount", "lost",
                            "lost_amount", "phantom", "balance_error", "key_store_peak"};
    for (size_t h = 0; h < sizeof hiding / sizeof hiding[0]; h++) {
        bool known = false;
        for (unsigned i = 0; i < scenario_metric_count; i++)
            known = known || strcmp(scenario_metric_names[i], hiding[h]) == 0;
        ck_assert_msg(known, "%s is not a report metric", hiding[h]);
    }
}
END_TEST

/* ------------------------------------------------------------------ the curriculum */

#define FILES_MAX 128

static unsigned curriculum_files(char names[FILES_MAX][96])
{
    DIR *directory = opendir(IDEMSIM_SOURCE_DIR "/scenarios");
    ck_assert_ptr_nonnull(directory);
    unsigned count = 0;
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL && count < FILES_MAX) {
        const char *name = entry->d_name;
        size_t length = strlen(name);
        bool numbered =
            name[0] >= '0' && name[0] <= '9' && name[1] >= '0' && name[1] <= '9' && name[2] == '_';
        if ((numbered || strcmp(name, "default.json") == 0) && length > 5 &&
            strcmp(name + length - 5, ".json") == 0)
            snprintf(names[count++], 96, "%.90s", name);
    }
    closedir(directory);
    return count;
}

static void values_now(const ViewSession *session, const Question *question,
                       double values[MODE_COUNT][QUESTION_REVEAL_MAX])
{
    for (uint32_t p = 0; p < session->pane_count; p++) {
        for (uint32_t m = 0; m < question->reveal_count; m++) {
            const char *metric = scenario_metric_names[question->reveal[m]];
            ck_assert_msg(view_quiz_metric_value(session->panes[p], metric, &values[p][m]),
                          "no value for metric %s", metric);
        }
    }
}

/* The question is asked where its answer is still to come: the clock is stopped at each
 * question exactly as the view stops it, the revealed metrics are read as the card shows
 * them, and the run goes on to the next question; some revealed metric must change in some
 * column before the next question (or the end). The first question hides something on
 * screen, so the room has something to predict. */
static void check_scenario_questions(const char *name, Scenario *scenario)
{
    char path[256];
    snprintf(path, sizeof path, IDEMSIM_SOURCE_DIR "/scenarios/%s", name);
    LoadErrors errors;
    ck_assert_msg(scenario_load_file(path, NULL, 0, scenario, &errors), "%s does not load", name);
    ck_assert_msg(scenario->question_count >= 1 && scenario->question_count <= 2,
                  "%s: expected 1 or 2 questions, got %u", name, scenario->question_count);
    ViewSession session;
    ck_assert(view_session_init(&session, scenario, scenario->modes, scenario->mode_count,
                                scenario->seed, 1.0));
    ViewQuiz quiz;
    view_quiz_init(&quiz, scenario->questions, scenario->question_count);
    for (uint32_t q = 0; q < scenario->question_count; q++) {
        view_session_advance(&session, view_quiz_clock_limit(&quiz, SIM_TIME_NEVER - 1), 0);
        ck_assert_msg(view_quiz_on_clock(&quiz, session.now_us, view_session_finished(&session)),
                      "%s: question %u is never asked", name, q + 1);
        ck_assert_msg(!view_session_finished(&session),
                      "%s: question %u comes after the run's last event", name, q + 1);
        if (q == 0)
            ck_assert_msg(view_quiz_hidden(&quiz) != 0, "%s: question 1 hides nothing", name);
        const Question *question = view_quiz_shown(&quiz);
        double asked[MODE_COUNT][QUESTION_REVEAL_MAX];
        values_now(&session, question, asked);
        view_quiz_press(&quiz);
        view_quiz_press(&quiz);
        view_session_advance(&session, view_quiz_clock_limit(&quiz, SIM_TIME_NEVER - 1), 0);
        double answered[MODE_COUNT][QUESTION_REVEAL_MAX];
        values_now(&session, question, answered);
        bool changed = false;
        for (uint32_t p = 0; p < session.pane_count; p++) {
            for (uint32_t m = 0; m < question->reveal_count; m++)
                changed = changed || asked[p][m] != answered[p][m];
        }
        ck_assert_msg(changed, "%s: question %u at %g ms: no revealed metric changes after it",
                      name, q + 1, question->at_ms);
    }
    view_session_release(&session);
}

START_TEST(test_every_curriculum_scenario_asks_before_its_answer_shows)
{
    static char names[FILES_MAX][96];
    unsigned count = curriculum_files(names);
    ck_assert_uint_ge(count, 21); /* C1..C20 and default */
    Scenario *scenario = malloc(sizeof *scenario);
    ck_assert_ptr_nonnull(scenario);
    for (unsigned i = 0; i < count; i++)
        check_scenario_questions(names[i], scenario);
    free(scenario);
}
END_TEST

/* The card reveals the answer, not the moment: each question's figures are those the
 * view's own panes show when the next question is asked, or at the end of the run for the
 * last one (where they are `idemsim run`'s). The panes here are the session's, run on by
 * the quiz's clock; the answers come from worlds of their own. */
static void check_scenario_answers(const char *name, Scenario *scenario)
{
    char path[256];
    snprintf(path, sizeof path, IDEMSIM_SOURCE_DIR "/scenarios/%s", name);
    LoadErrors errors;
    ck_assert_msg(scenario_load_file(path, NULL, 0, scenario, &errors), "%s does not load", name);
    ViewSession session;
    ck_assert(view_session_init(&session, scenario, scenario->modes, scenario->mode_count,
                                scenario->seed, 1.0));
    ViewQuiz *quiz = malloc(sizeof *quiz);
    ck_assert_ptr_nonnull(quiz);
    view_quiz_init(quiz, scenario->questions, scenario->question_count);
    double revealed[MODE_COUNT][QUESTION_REVEAL_MAX];
    const Question *previous = NULL;
    for (uint32_t q = 0; q <= scenario->question_count; q++) {
        view_session_advance(&session, view_quiz_clock_limit(quiz, SIM_TIME_NEVER - 1), 0);
        if (q == scenario->question_count) /* past the last question: the end of the run */
            ck_assert_msg(view_session_finished(&session), "%s: the run never ends", name);
        else
            ck_assert(view_quiz_on_clock(quiz, session.now_us, view_session_finished(&session)));
        if (previous != NULL) {
            double now[MODE_COUNT][QUESTION_REVEAL_MAX];
            values_now(&session, previous, now);
            for (uint32_t p = 0; p < session.pane_count; p++) {
                for (uint32_t m = 0; m < previous->reveal_count; m++)
                    ck_assert_msg(now[p][m] == revealed[p][m],
                                  "%s: question %u revealed %s %g in %s, the run shows %g", name, q,
                                  scenario_metric_names[previous->reveal[m]], revealed[p][m],
                                  mode_name(session.panes[p]->mode), now[p][m]);
            }
        }
        if (q == scenario->question_count)
            break;
        ck_assert_int_eq(view_quiz_press(quiz), VIEW_QUIZ_PRESS_REVEAL);
        view_quiz_learn_answers(quiz, session.panes, session.pane_count);
        previous = view_quiz_shown(quiz);
        for (uint32_t p = 0; p < session.pane_count; p++) {
            for (uint32_t m = 0; m < previous->reveal_count; m++)
                ck_assert_msg(view_quiz_answer(quiz, p, m, &revealed[p][m]),
                              "%s: question %u has no answer for %s", name, q + 1,
                              scenario_metric_names[previous->reveal[m]]);
        }
        ck_assert_int_eq(view_quiz_press(quiz), VIEW_QUIZ_PRESS_RUN_ON);
    }
    free(quiz);
    view_session_release(&session);
}

START_TEST(test_every_curriculum_question_reveals_its_answer_not_its_moment)
{
    static char names[FILES_MAX][96];
    unsigned count = curriculum_files(names);
    Scenario *scenario = malloc(sizeof *scenario);
    ck_assert_ptr_nonnull(scenario);
    for (unsigned i = 0; i < count; i++)
        check_scenario_answers(names[i], scenario);
    free(scenario);
}
END_TEST

/* The workshop's first vote (docs/workshop.md): with every answer lost, at-least-once
 * charges all three cards again and at-most-once leaves three clients not told. At the
 * question's moment both are still 0, which is what the card used to show. */
START_TEST(test_c1_reveals_three_doubles_and_three_phantoms)
{
    Scenario *scenario = malloc(sizeof *scenario);
    ck_assert_ptr_nonnull(scenario);
    LoadErrors errors;
    ck_assert(scenario_load_file(IDEMSIM_SOURCE_DIR "/scenarios/01_lost_answer.json", NULL, 0,
                                 scenario, &errors));
    ViewSession session;
    ck_assert(view_session_init(&session, scenario, scenario->modes, scenario->mode_count,
                                scenario->seed, 1.0));
    ViewQuiz *quiz = malloc(sizeof *quiz);
    ck_assert_ptr_nonnull(quiz);
    view_quiz_init(quiz, scenario->questions, scenario->question_count);
    view_session_advance(&session, view_quiz_clock_limit(quiz, SIM_TIME_NEVER - 1), 0);
    ck_assert(view_quiz_on_clock(quiz, session.now_us, false));
    view_quiz_press(quiz);
    view_quiz_learn_answers(quiz, session.panes, session.pane_count);
    const Question *question = view_quiz_shown(quiz);
    ck_assert_str_eq(scenario_metric_names[question->reveal[0]], "double");
    ck_assert_str_eq(scenario_metric_names[question->reveal[1]], "phantom");
    double expected[MODE_COUNT][2] = {{0, 3}, {3, 0}, {0, 0}}; /* by the file's mode order */
    for (uint32_t p = 0; p < session.pane_count; p++) {
        double value = -1;
        for (uint32_t m = 0; m < 2; m++) {
            ck_assert(view_quiz_answer(quiz, p, m, &value));
            ck_assert_msg(value == expected[p][m], "%s %s: revealed %g, the workshop says %g",
                          mode_name(session.panes[p]->mode),
                          scenario_metric_names[question->reveal[m]], value, expected[p][m]);
        }
    }
    free(quiz);
    view_session_release(&session);
    free(scenario);
}
END_TEST

/* ------------------------------------------------------------------ the workshop's votes */

/* docs/workshop.md runs twelve votes, each a question some scenario declares, and quotes
 * the figures its reveal will show. Each row ties one quoted figure to the words that quote
 * it: the words must be in the workshop text (line breaks read as spaces), must hold the
 * figure, and the card must reveal it, so the text, the question and the build agree. */
typedef struct {
    const char *scenario;
    uint32_t question; /* 1-based, as the card says "question 1 of 2" */
    const char *pause; /* the workshop's words for when the view stops, holding at_ms in s */
    double pause_s;
    const char *metric;
    Mode mode;
    double figure;
    const char *quote; /* holds the figure, or "no one"/"nothing" for 0 */
} WorkshopFigure;

static const WorkshopFigure workshop_figures[] = {
    {"default", 1, "pauses at 0.6 s", 0.6, "double", MODE_AT_LEAST_ONCE, 79,
     "loses nothing and double-charges 79"},
    {"default", 1, "pauses at 0.6 s", 0.6, "double", MODE_AT_MOST_ONCE, 0,
     "at-most-once double-charges no one here"},
    {"default", 1, "pauses at 0.6 s", 0.6, "double", MODE_IDEMPOTENT, 0,
     "idempotent: 1000 ok, 0 double, 0 lost"},
    {"default", 1, "pauses at 0.6 s", 0.6, "lost", MODE_AT_MOST_ONCE, 55, "loses 55 payments"},
    {"default", 1, "pauses at 0.6 s", 0.6, "lost", MODE_AT_LEAST_ONCE, 0,
     "at-least-once loses nothing"},
    {"default", 1, "pauses at 0.6 s", 0.6, "lost", MODE_IDEMPOTENT, 0, "0 double, 0 lost"},
    {"default", 1, "pauses at 0.6 s", 0.6, "phantom", MODE_AT_MOST_ONCE, 76,
     "leaves 76 people charged without an answer"},
    {"01_lost_answer", 1, "pauses at 0.95 s", 0.95, "double", MODE_AT_LEAST_ONCE, 3,
     "3 *double* (126.00 too much)"},
    {"01_lost_answer", 1, "pauses at 0.95 s", 0.95, "phantom", MODE_AT_MOST_ONCE, 3,
     "at-most-once 3 *phantom*"},
    {"05_increment", 1, "at 0.8 s", 0.8, "double", MODE_AT_LEAST_ONCE, 19,
     "`05_increment`: 19 double"},
    {"05_increment", 1, "at 0.8 s", 0.8, "double", MODE_AT_MOST_ONCE, 0,
     "at-most-once 0 double and 19"},
    {"13_double_click_per_click", 1, "pauses at 0.45 s", 0.45, "double", MODE_AT_MOST_ONCE, 14,
     "At-most-once 14"},
    {"13_double_click_per_click", 1, "pauses at 0.45 s", 0.45, "double", MODE_AT_LEAST_ONCE, 18,
     "at-least-once 18"},
    {"13_double_click_per_click", 1, "pauses at 0.45 s", 0.45, "double", MODE_IDEMPOTENT, 17,
     "idempotent 17"},
    {"13_double_click_per_click", 1, "pauses at 0.45 s", 0.45, "replayed", MODE_IDEMPOTENT, 2,
     "its 2 *replayed*"},
    {"06_per_attempt_key", 1, "pauses at 0.9 s", 0.9, "double", MODE_IDEMPOTENT, 13,
     "80 executions, 13 *double*"},
    {"06_per_attempt_key", 1, "pauses at 0.9 s", 0.9, "replayed", MODE_IDEMPOTENT, 0,
     "*replayed* 0"},
    {"06_per_attempt_key", 1, "pauses at 0.9 s", 0.9, "double", MODE_AT_MOST_ONCE, 0,
     "At-most-once: 0 double, 13 *phantom*"},
    {"08_key_reuse_no_fingerprint", 1, "pauses at 0.75 s", 0.75, "mismatch", MODE_IDEMPOTENT, 11,
     "11 *mismatch*"},
    {"08_key_reuse_no_fingerprint", 1, "pauses at 0.75 s", 0.75, "mismatch", MODE_AT_LEAST_ONCE, 0,
     "at-least-once 0 mismatch"},
    {"08_key_reuse_no_fingerprint", 1, "pauses at 0.75 s", 0.75, "replayed", MODE_IDEMPOTENT, 11,
     "11 *replayed* with the other payment's answer"},
    {"07_check_then_insert", 1, "pauses at 0.14 s", 0.14, "double", MODE_IDEMPOTENT, 13,
     "**Reveal:** 13 (at-most-once"},
    {"07_check_then_insert", 1, "pauses at 0.14 s", 0.14, "double", MODE_AT_MOST_ONCE, 16,
     "at-most-once and at-least-once: 16 each"},
    {"07_check_then_insert", 1, "pauses at 0.14 s", 0.14, "double", MODE_AT_LEAST_ONCE, 16,
     "at-most-once and at-least-once: 16 each"},
    {"07_check_then_insert", 1, "pauses at 0.14 s", 0.14, "409", MODE_IDEMPOTENT, 3,
     "only 3 × 409"},
    {"09_in_progress_409", 1, "pauses at 0.4 s", 0.4, "409", MODE_IDEMPOTENT, 28, "28 × 409"},
    {"09_in_progress_409", 1, "pauses at 0.4 s", 0.4, "double", MODE_IDEMPOTENT, 0,
     "idempotent 0 *double*"},
    {"09_in_progress_409", 1, "pauses at 0.4 s", 0.4, "double", MODE_AT_MOST_ONCE, 15,
     "charge all 15 second presses"},
    {"09_in_progress_409", 1, "pauses at 0.4 s", 0.4, "double", MODE_AT_LEAST_ONCE, 15,
     "charge all 15 second presses"},
    {"10_happy_path_only", 1, "pauses at 0.07 s", 0.07, "double", MODE_IDEMPOTENT, 9,
     "identical to at-least-once, 9 *double*, 0 *replayed*"},
    {"10_happy_path_only", 1, "pauses at 0.07 s", 0.07, "double", MODE_AT_LEAST_ONCE, 9,
     "identical to at-least-once, 9 *double*"},
    {"10_happy_path_only", 1, "pauses at 0.07 s", 0.07, "replayed", MODE_IDEMPOTENT, 0,
     "9 *double*, 0 *replayed*"},
    {"10_happy_path_only", 1, "pauses at 0.07 s", 0.07, "double", MODE_AT_MOST_ONCE, 0,
     "At-most-once: 0 double, 9 *phantom*"},
    {"11_crash_after_charge", 1, "pauses at 1 s", 1.0, "409", MODE_IDEMPOTENT, 3,
     "idempotent 3 × 409"},
    {"11_crash_after_charge", 1, "pauses at 1 s", 1.0, "double", MODE_AT_LEAST_ONCE, 3,
     "at-least-once has charged 3 twice"},
    {"11_crash_after_charge", 1, "pauses at 1 s", 1.0, "double", MODE_IDEMPOTENT, 0,
     "and 0 *double*"},
    {"11_crash_after_charge", 2, "pauses at 4 s", 4.0, "double", MODE_IDEMPOTENT, 7,
     "idempotent 7 *double*"},
    {"11_crash_after_charge", 2, "pauses at 4 s", 4.0, "double", MODE_AT_LEAST_ONCE, 8,
     "(at-least-once 8)"},
    {"11_crash_after_charge", 2, "pauses at 4 s", 4.0, "replayed", MODE_IDEMPOTENT, 0,
     "charge again: 0 *replayed*"},
    {"11_crash_after_charge", 2, "pauses at 4 s", 4.0, "double", MODE_AT_MOST_ONCE, 0,
     "At-most-once: 0 double, but 16 *lost*"},
    {"02_offline_ttl_too_short", 1, "pauses at 60 s", 60.0, "double", MODE_IDEMPOTENT, 24,
     "no: 24 *double*"},
    {"02_offline_ttl_too_short", 1, "pauses at 60 s", 60.0, "double", MODE_AT_LEAST_ONCE, 35,
     "(at-least-once 35)"},
    {"02_offline_ttl_too_short", 1, "pauses at 60 s", 60.0, "replayed", MODE_IDEMPOTENT, 11,
     "11 came back in time and were replayed"},
    {"02_offline_ttl_too_short", 1, "pauses at 60 s", 60.0, "double", MODE_AT_MOST_ONCE, 0,
     "At-most-once: 0 double, 35 *phantom*"},
};

/* The workshop text with every run of white space read as one space. */
static char *workshop_text(void)
{
    FILE *file = fopen(IDEMSIM_SOURCE_DIR "/docs/workshop.md", "r");
    ck_assert_ptr_nonnull(file);
    size_t capacity = 1 << 20, length = 0;
    char *text = malloc(capacity);
    ck_assert_ptr_nonnull(text);
    int c;
    bool space = false;
    while ((c = fgetc(file)) != EOF && length + 1 < capacity) {
        bool white = c == ' ' || c == '\n' || c == '\t' || c == '\r';
        if (white && space)
            continue;
        text[length++] = white ? ' ' : (char)c;
        space = white;
    }
    text[length] = '\0';
    fclose(file);
    return text;
}

/* The figure is written in its quote as a number of its own (not part of 126.00 or 1000). */
static bool quote_holds_figure(const char *quote, double figure)
{
    if (figure == 0 && (strstr(quote, "no one") != NULL || strstr(quote, "nothing") != NULL))
        return true;
    char number[32];
    snprintf(number, sizeof number, "%g", figure);
    size_t length = strlen(number);
    for (const char *at = strstr(quote, number); at != NULL; at = strstr(at + 1, number)) {
        bool starts = at == quote || !(at[-1] >= '0' && at[-1] <= '9') || at[-1] == '.';
        char after = at[length];
        if (starts && !(after >= '0' && after <= '9') && after != '.')
            return true;
    }
    return false;
}

/* What the card reveals for question `number` (1-based) of a scenario, by mode: the quiz run
 * as the room runs it, each earlier question revealed and run on. */
static void workshop_reveal(const char *name, uint32_t number, const char *metric,
                            double at_ms_out[1], double revealed[MODE_COUNT])
{
    char path[256];
    snprintf(path, sizeof path, IDEMSIM_SOURCE_DIR "/scenarios/%s.json", name);
    Scenario *scenario = malloc(sizeof *scenario);
    ck_assert_ptr_nonnull(scenario);
    LoadErrors errors;
    ck_assert_msg(scenario_load_file(path, NULL, 0, scenario, &errors), "%s does not load", name);
    ck_assert_msg(number >= 1 && number <= scenario->question_count,
                  "%s has no question %u: the workshop votes on it", name, number);
    ViewSession session;
    ck_assert(view_session_init(&session, scenario, scenario->modes, scenario->mode_count,
                                scenario->seed, 1.0));
    ViewQuiz *quiz = malloc(sizeof *quiz);
    ck_assert_ptr_nonnull(quiz);
    view_quiz_init(quiz, scenario->questions, scenario->question_count);
    for (uint32_t q = 1; q <= number; q++) {
        view_session_advance(&session, view_quiz_clock_limit(quiz, SIM_TIME_NEVER - 1), 0);
        ck_assert(view_quiz_on_clock(quiz, session.now_us, view_session_finished(&session)));
        ck_assert_int_eq(view_quiz_press(quiz), VIEW_QUIZ_PRESS_REVEAL);
        view_quiz_learn_answers(quiz, session.panes, session.pane_count);
        if (q < number)
            ck_assert_int_eq(view_quiz_press(quiz), VIEW_QUIZ_PRESS_RUN_ON);
    }
    const Question *question = view_quiz_shown(quiz);
    at_ms_out[0] = question->at_ms;
    int reveal_index = -1;
    for (uint32_t m = 0; m < question->reveal_count; m++) {
        if (strcmp(scenario_metric_names[question->reveal[m]], metric) == 0)
            reveal_index = (int)m;
    }
    ck_assert_msg(reveal_index >= 0, "%s question %u does not reveal %s, the workshop quotes it",
                  name, number, metric);
    for (uint32_t m = 0; m < MODE_COUNT; m++)
        revealed[m] = -1;
    for (uint32_t p = 0; p < session.pane_count; p++)
        ck_assert(
            view_quiz_answer(quiz, p, (uint32_t)reveal_index, &revealed[session.panes[p]->mode]));
    free(quiz);
    view_session_release(&session);
    free(scenario);
}

START_TEST(test_each_workshop_vote_reveals_the_figures_the_workshop_quotes)
{
    char *text = workshop_text();
    size_t rows = sizeof workshop_figures / sizeof workshop_figures[0];
    unsigned votes = 0;
    for (size_t i = 0; i < rows; i++) {
        const WorkshopFigure *row = &workshop_figures[i];
        bool new_vote = i == 0 || strcmp(row->scenario, workshop_figures[i - 1].scenario) != 0 ||
                        row->question != workshop_figures[i - 1].question;
        votes += new_vote;
        ck_assert_msg(strstr(text, row->quote) != NULL, "docs/workshop.md no longer says '%s'",
                      row->quote);
        ck_assert_msg(strstr(text, row->pause) != NULL, "docs/workshop.md no longer says '%s'",
                      row->pause);
        ck_assert_msg(quote_holds_figure(row->quote, row->figure), "'%s' does not say %g",
                      row->quote, row->figure);
        char command[160];
        snprintf(command, sizeof command, "view scenarios/%s.json --predict", row->scenario);
        ck_assert_msg(strstr(text, command) != NULL, "docs/workshop.md does not project '%s'",
                      command);
        double at_ms = 0, revealed[MODE_COUNT];
        workshop_reveal(row->scenario, row->question, row->metric, &at_ms, revealed);
        ck_assert_msg(fabs(at_ms - row->pause_s * 1000) < 1e-6,
                      "%s question %u is asked at %g ms, not at '%s'", row->scenario, row->question,
                      at_ms, row->pause);
        ck_assert_msg(revealed[row->mode] == row->figure,
                      "%s question %u: the card reveals %s %g in %s; docs/workshop.md says '%s'",
                      row->scenario, row->question, row->metric, revealed[row->mode],
                      mode_name(row->mode), row->quote);
    }
    ck_assert_uint_eq(votes, 12);
    ck_assert_ptr_nonnull(strstr(text, "**12 votes**"));
    free(text);
}
END_TEST

/* C1's question at 0.95 s: revealed at the end, at-least-once has charged 3 twice; with
 * answer_at_ms at the question's own moment, nothing yet (the first design's 0). The card's
 * figure is the run's at the time the question names. */
static double c1_double_revealed(bool answer_at_question, double answer_at_ms)
{
    Scenario *scenario = malloc(sizeof *scenario);
    ck_assert_ptr_nonnull(scenario);
    LoadErrors errors;
    ck_assert(scenario_load_file(IDEMSIM_SOURCE_DIR "/scenarios/01_lost_answer.json", NULL, 0,
                                 scenario, &errors));
    scenario->questions[0].has_answer_at = answer_at_question;
    scenario->questions[0].answer_at_ms = answer_at_ms;
    ViewSession session;
    ck_assert(view_session_init(&session, scenario, scenario->modes, scenario->mode_count,
                                scenario->seed, 1.0));
    ViewQuiz *quiz = malloc(sizeof *quiz);
    ck_assert_ptr_nonnull(quiz);
    view_quiz_init(quiz, scenario->questions, scenario->question_count);
    view_session_advance(&session, view_quiz_clock_limit(quiz, SIM_TIME_NEVER - 1), 0);
    ck_assert(view_quiz_on_clock(quiz, session.now_us, false));
    view_quiz_press(quiz);
    view_quiz_learn_answers(quiz, session.panes, session.pane_count);
    ck_assert_int_eq(session.panes[1]->mode, MODE_AT_LEAST_ONCE);
    double value = -1;
    ck_assert(view_quiz_answer(quiz, 1, 0, &value)); /* reveal[0] is "double" */
    free(quiz);
    view_session_release(&session);
    free(scenario);
    return value;
}

START_TEST(test_answer_at_ms_sets_the_moment_the_reveal_reads)
{
    ck_assert(c1_double_revealed(false, 0) == 3);
    ck_assert(c1_double_revealed(true, 950) == 0);
    ck_assert(c1_double_revealed(true, 10000) == 3);
}
END_TEST

START_TEST(test_quiz_speaks_the_report_words_not_metric_ids)
{
    Scenario *scenario = malloc(sizeof *scenario);
    LoadErrors errors;
    ck_assert_ptr_nonnull(scenario);
    ck_assert(scenario_load_file(IDEMSIM_SOURCE_DIR "/scenarios/01_lost_answer.json", NULL, 0,
                                 scenario, &errors));
    char words[96];
    ck_assert_str_eq(view_quiz_metric_words(scenario, "attempts_peak_per_s", words, sizeof words),
                     "attempts per second, peak");
    ck_assert_str_eq(view_quiz_metric_words(scenario, "stale_final", words, sizeof words),
                     "records left at old status");
    ck_assert_str_eq(view_quiz_metric_words(scenario, "double_amount", words, sizeof words),
                     "double-charged money");
    ck_assert_str_eq(view_quiz_metric_words(scenario, "mismatch", words, sizeof words),
                     "mismatch (another's response)");
    /* a metric with no row in the table: its name, without the underscores */
    ck_assert_str_eq(view_quiz_metric_words(scenario, "balance_error", words, sizeof words),
                     "balance error");
    for (unsigned i = 0; i < scenario_metric_count; i++)
        ck_assert_ptr_null(strchr(
            view_quiz_metric_words(scenario, scenario_metric_names[i], words, sizeof words), '_'));
    free(scenario);
}
END_TEST

/* refused_store_down in the words of the scenario's own table: a server whose key store is
 * down answers 503; a consumer group's workers hand the delivery back, with no status. */
START_TEST(test_quiz_names_store_down_refusals_by_who_refuses)
{
    static const struct {
        const char *path;
        const char *words;
    } cases[] = {
        {IDEMSIM_SOURCE_DIR "/scenarios/38_key_store_down_fail_closed.json", "503: key store down"},
        {IDEMSIM_SOURCE_DIR "/scenarios/architectures/workers_dedupe_store_down.json",
         "handed back: key store down"},
    };
    Scenario *scenario = malloc(sizeof *scenario);
    ck_assert_ptr_nonnull(scenario);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        LoadErrors errors;
        ck_assert(scenario_load_file(cases[c].path, NULL, 0, scenario, &errors));
        char words[96];
        ck_assert_str_eq(
            view_quiz_metric_words(scenario, "refused_store_down", words, sizeof words),
            cases[c].words);
    }
    free(scenario);
}
END_TEST

static Suite *view_quiz_suite(void)
{
    Suite *suite = suite_create("view_quiz");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_quiz_without_questions_never_holds_the_clock_or_takes_a_key);
    tcase_add_test(core, test_quiz_asks_reveals_then_runs_on_to_the_next_question);
    tcase_add_test(core, test_quiz_asks_at_once_when_the_run_finished_before_the_question);
    tcase_add_test(core, test_quiz_restart_asks_again_from_the_first_question);
    tcase_add_test(core, test_quiz_hides_what_each_metric_shows_and_nothing_for_the_others);
    tcase_add_test(core, test_quiz_speaks_the_report_words_not_metric_ids);
    tcase_add_test(core, test_quiz_names_store_down_refusals_by_who_refuses);
    tcase_add_test(core, test_c1_reveals_three_doubles_and_three_phantoms);
    tcase_add_test(core, test_answer_at_ms_sets_the_moment_the_reveal_reads);
    tcase_add_test(core, test_every_curriculum_question_reveals_its_answer_not_its_moment);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_set_timeout(limits, 300);
    tcase_add_test(limits, test_quiz_times_round_to_the_nearest_microsecond);
    tcase_add_test(limits, test_every_curriculum_scenario_asks_before_its_answer_shows);
    tcase_add_test(limits, test_each_workshop_vote_reveals_the_figures_the_workshop_quotes);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(view_quiz_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
