/* The predict-then-reveal state machine. A question goes WAITING -> ASKING (the clock
 * reached it: hold the clock, hide its metrics) -> REVEALED (first key: the same moment,
 * the counters shown again and the card gives the answer) -> WAITING for the next one or
 * OVER (second key: the run goes on and the room watches the answer happen). The card
 * reveals the run's final figures, learnt from worlds of their own run to the end, while
 * the panes stay at the question's moment: jumping the panes to the end was rejected, as
 * the room would see the result without the run that produced it, which is the part the
 * simulator exists to show. */
#include "view_quiz.h"

#include <stdio.h>
#include <string.h>

#include "report.h"
#include "world.h"

void view_quiz_init(ViewQuiz *quiz, const Question *questions, uint32_t count)
{
    quiz->questions = questions;
    quiz->question_count = questions != NULL ? count : 0;
    view_quiz_restart(quiz);
}

void view_quiz_restart(ViewQuiz *quiz)
{
    quiz->answers_known = false; /* a new seed ('s') is a new run, with other answers */
    quiz->current = 0;
    quiz->phase = quiz->question_count > 0 ? VIEW_QUIZ_WAITING : VIEW_QUIZ_OVER;
}

/* ------------------------------------------------------------------ the clock */

SimTimeUs view_quiz_at_us(const ViewQuiz *quiz, uint32_t index)
{
    return (SimTimeUs)(quiz->questions[index].at_ms * 1000.0 + 0.5);
}

SimTimeUs view_quiz_answer_at_us(const ViewQuiz *quiz, uint32_t index)
{
    const Question *question = &quiz->questions[index];
    if (question->has_answer_at)
        return (SimTimeUs)(question->answer_at_ms * 1000.0 + 0.5);
    return index + 1 < quiz->question_count ? view_quiz_at_us(quiz, index + 1) : SIM_TIME_NEVER;
}

SimTimeUs view_quiz_clock_limit(const ViewQuiz *quiz, SimTimeUs target_us)
{
    if (quiz->phase != VIEW_QUIZ_WAITING)
        return target_us;
    SimTimeUs at_us = view_quiz_at_us(quiz, quiz->current);
    return target_us < at_us ? target_us : at_us;
}

bool view_quiz_holds_clock(const ViewQuiz *quiz)
{
    return quiz->phase == VIEW_QUIZ_ASKING || quiz->phase == VIEW_QUIZ_REVEALED;
}

bool view_quiz_on_clock(ViewQuiz *quiz, SimTimeUs now_us, bool finished)
{
    if (quiz->phase != VIEW_QUIZ_WAITING)
        return false;
    if (now_us < view_quiz_at_us(quiz, quiz->current) && !finished)
        return false;
    quiz->phase = VIEW_QUIZ_ASKING;
    return true;
}

/* ------------------------------------------------------------------ keys */

ViewQuizPress view_quiz_press(ViewQuiz *quiz)
{
    switch (quiz->phase) {
    case VIEW_QUIZ_ASKING:
        quiz->phase = VIEW_QUIZ_REVEALED;
        return VIEW_QUIZ_PRESS_REVEAL;
    case VIEW_QUIZ_REVEALED:
        quiz->current++;
        quiz->phase = quiz->current < quiz->question_count ? VIEW_QUIZ_WAITING : VIEW_QUIZ_OVER;
        return VIEW_QUIZ_PRESS_RUN_ON;
    case VIEW_QUIZ_WAITING:
    case VIEW_QUIZ_OVER:
        break;
    }
    return VIEW_QUIZ_PRESS_UNUSED;
}

/* ------------------------------------------------------------------ answers */

/* A metric as the counters show it: a double counts from its second charge (the world's
 * live count), the rest are the world's metrics; at the end the two agree. */
static bool answer_value(const Metrics *metrics, const char *metric, double *value)
{
    if (strcmp(metric, "double") == 0) {
        *value = (double)metrics->doubles_so_far;
        return true;
    }
    if (strcmp(metric, "double_amount") == 0) {
        *value = (double)metrics->double_amount_so_far;
        return true;
    }
    return metrics_value(metrics, metric, value);
}

/* Revealing the numbers at the question's moment was the first design: the room voted on
 * "how many will be charged twice?" and read 0, because the doubles happen after it. The
 * answer is the run's final figure; for a question with another after it, the figure when
 * the next one is asked, so that question's answer is not given away before its vote. */
static void learn_pane(ViewQuiz *quiz, uint32_t p, const ViewPane *pane)
{
    World *world = NULL;
    for (uint32_t q = 0; q < quiz->question_count; q++) {
        /* A question's answer_at_ms may lie past the next question's: a world cannot run
         * back, so a question answered earlier than the world's clock gets a fresh one. */
        SimTimeUs answer_at = view_quiz_answer_at_us(quiz, q);
        if (world != NULL && world_now(world) > answer_at) {
            world_destroy(world);
            world = NULL;
        }
        if (world == NULL)
            world = world_create(pane->scenario, pane->mode, pane->seed, (TraceSink){0},
                                 (WorldLimits){0});
        if (world == NULL)
            return;
        if (answer_at == SIM_TIME_NEVER)
            world_run(world);
        else
            world_run_until(world, answer_at);
        const Question *question = &quiz->questions[q];
        for (uint32_t r = 0; r < question->reveal_count; r++) {
            uint16_t metric = question->reveal[r];
            quiz->answered[p][q][r] =
                metric < scenario_metric_count &&
                answer_value(world_metrics(world), scenario_metric_names[metric],
                             &quiz->answers[p][q][r]);
        }
    }
    world_destroy(world);
}

void view_quiz_learn_answers(ViewQuiz *quiz, ViewPane *const *panes, uint32_t pane_count)
{
    if (quiz->answers_known)
        return;
    memset(quiz->answered, 0, sizeof quiz->answered);
    for (uint32_t p = 0; p < pane_count && p < MODE_COUNT; p++)
        learn_pane(quiz, p, panes[p]);
    quiz->answers_known = true;
}

bool view_quiz_answer(const ViewQuiz *quiz, uint32_t pane, uint32_t reveal_index, double *value)
{
    if (!quiz->answers_known || pane >= MODE_COUNT || reveal_index >= QUESTION_REVEAL_MAX ||
        !view_quiz_holds_clock(quiz) || !quiz->answered[pane][quiz->current][reveal_index])
        return false;
    *value = quiz->answers[pane][quiz->current][reveal_index];
    return true;
}

const char *view_quiz_metric_words(const Scenario *scenario, const char *metric, char *buffer,
                                   size_t size)
{
    const char *label = report_metric_label(scenario, metric);
    snprintf(buffer, size, "%s", label != NULL ? label : metric);
    if (label == NULL) {
        for (char *c = buffer; *c != '\0'; c++)
            *c = *c == '_' ? ' ' : *c;
    }
    return buffer;
}

/* ------------------------------------------------------------------ what to draw */

const Question *view_quiz_shown(const ViewQuiz *quiz)
{
    return view_quiz_holds_clock(quiz) ? &quiz->questions[quiz->current] : NULL;
}

/* The panels and what each metric gives away. A count of doubles or lost payments also
 * shows as money over or short in the balances, so those hide the verdicts too; the key
 * store's rows show its size. Other metrics have no panel of their own. */
static const struct {
    const char *metric;
    unsigned bits;
} hide_table[] = {
    {"ok", VIEW_QUIZ_HIDE_OK},
    {"double", VIEW_QUIZ_HIDE_DOUBLE | VIEW_QUIZ_HIDE_BALANCES},
    {"double_amount", VIEW_QUIZ_HIDE_DOUBLE | VIEW_QUIZ_HIDE_BALANCES},
    {"lost", VIEW_QUIZ_HIDE_LOST | VIEW_QUIZ_HIDE_BALANCES},
    {"lost_amount", VIEW_QUIZ_HIDE_LOST | VIEW_QUIZ_HIDE_BALANCES},
    {"phantom", VIEW_QUIZ_HIDE_PHANTOM},
    {"balance_error", VIEW_QUIZ_HIDE_BALANCES},
    {"key_store_peak", VIEW_QUIZ_HIDE_KEY_STORE},
    {"mismatch", VIEW_QUIZ_HIDE_MISMATCH},
    {"stale_overwrites", VIEW_QUIZ_HIDE_STALE},
    {"stale_final", VIEW_QUIZ_HIDE_STALE},
    /* C29: the wallet and the fifth counter tell what was written over */
    {"lost_updates", VIEW_QUIZ_HIDE_BALANCES | VIEW_QUIZ_HIDE_LOST_UPDATES},
    {"lost_update_amount", VIEW_QUIZ_HIDE_BALANCES | VIEW_QUIZ_HIDE_LOST_UPDATES},
    /* C28: money given away shows over in the balance, and under the refunded counter */
    {"refunded", VIEW_QUIZ_HIDE_REFUNDED},
    {"orders_fulfilled_twice", VIEW_QUIZ_HIDE_TWICE}, /* C33: the orders' own counter */
    /* C35: a second hold shows on the card though nothing is charged twice */
    {"double_holds", VIEW_QUIZ_HIDE_DOUBLE_HOLDS},
    {"double_refunds", VIEW_QUIZ_HIDE_BALANCES | VIEW_QUIZ_HIDE_REFUNDED},
    {"double_refund_amount", VIEW_QUIZ_HIDE_BALANCES | VIEW_QUIZ_HIDE_REFUNDED},
};

unsigned view_quiz_hide_bits_of_metric(const char *metric)
{
    for (size_t i = 0; i < sizeof hide_table / sizeof hide_table[0]; i++) {
        if (strcmp(hide_table[i].metric, metric) == 0)
            return hide_table[i].bits;
    }
    return 0;
}

unsigned view_quiz_hidden(const ViewQuiz *quiz)
{
    if (quiz->phase != VIEW_QUIZ_ASKING)
        return 0;
    const Question *question = &quiz->questions[quiz->current];
    unsigned bits = 0;
    for (uint32_t i = 0; i < question->reveal_count; i++) {
        uint16_t metric = question->reveal[i];
        if (metric < scenario_metric_count)
            bits |= view_quiz_hide_bits_of_metric(scenario_metric_names[metric]);
    }
    return bits;
}

bool view_quiz_metric_value(const ViewPane *pane, const char *metric, double *value)
{
    const ViewTally *tally = &pane->tally;
    static const char *const outcome_names[] = {"ok", "double", "lost", "phantom", "mismatch"};
    static const Outcome outcomes[] = {OUTCOME_OK, OUTCOME_DOUBLE, OUTCOME_LOST, OUTCOME_PHANTOM,
                                       OUTCOME_MISMATCH};
    for (size_t i = 0; i < sizeof outcomes / sizeof outcomes[0]; i++) {
        if (strcmp(metric, outcome_names[i]) == 0) {
            *value = (double)tally->outcomes[outcomes[i]];
            return true;
        }
    }
    if (strcmp(metric, "double_amount") == 0) {
        *value = (double)tally->double_amount;
        return true;
    }
    if (strcmp(metric, "lost_amount") == 0) {
        *value = (double)tally->lost_amount;
        return true;
    }
    return metrics_value(world_metrics(pane->world), metric, value);
}
